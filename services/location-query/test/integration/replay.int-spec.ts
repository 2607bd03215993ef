import { randomUUID } from 'node:crypto';
import type { Location } from '@lx/contracts';
import { replayProjection } from '@lx/messaging';
import { aNewLocation, publish, uniqueSuffix, waitFor, waitUntilCaughtUp } from '@lx/testing';
import { loadLocationQueryConfig } from '../../src/config/location-query.config';
import { READ_MODEL_REPLAY } from '../../src/replay/replay-read-model';
import { type LocationQueryHarness, READ_MODEL_TOPICS, startLocationQuery } from '../support/location-query-harness';

const REPLAY_TIMEOUT_MS = 15 * 60_000;

/**
 * The SRE replay: rebuilds from offset 0 of the shared topics (everything every test and benchmark ever published),
 * so it takes as long as the log is long.
 */
describe('location-query replay', () => {
  let service: LocationQueryHarness;

  beforeAll(async () => {
    service = await startLocationQuery();
  }, 60_000);

  afterAll(() => service?.close());

  const rowsOf = async (table: string, ids: string[]) =>
    (await service.db.query(`SELECT * FROM ${table} WHERE id = ANY($1::uuid[]) ORDER BY id`, [ids])).rows.map(
      (row: Record<string, unknown>) => ({ ...row, body: row['body'] }),
    );
  const indexes = async () =>
    (
      await service.db.query(
        `SELECT tablename, indexname FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1, 2`,
      )
    ).rows;

  it(
    'rebuilds into fresh tables while readers keep reading, then switches to identical contents and keeps consuming',
    async () => {
      const group = { id: randomUUID(), name: `Replay ${uniqueSuffix()}`, type: 'OTHER' as const };
      await publish(service.bus, 'LOCATION_GROUP_CREATED', group, 1);
      const locations: Location[] = Array.from({ length: 30 }, () => aNewLocation({ locationGroupId: group.id }));
      for (const location of locations) await publish(service.bus, 'LOCATION_CREATED', location, 1);
      for (const location of locations.slice(0, 10)) {
        await publish(service.bus, 'LOCATION_UPDATED', { ...location, notes: 'second version' }, 2);
      }
      await publish(service.bus, 'LOCATION_GROUP_UPDATED', { ...group, name: `${group.name} (renamed)` }, 2);
      await waitUntilCaughtUp(service.bus, service.db, service.groupId, READ_MODEL_TOPICS);
      const ids = locations.map((location) => location.id);
      const indexesBefore = await indexes();

      // Readers during the rebuild: every read of a known location must succeed.
      let reading = true;
      let reads = 0;
      const failures: string[] = [];
      const reader = (async () => {
        while (reading) {
          const id = ids[reads % ids.length]!;
          const reply = await service.get(`/locations/${id}`);
          if (reply.status !== 200) failures.push(`${reply.status} ${reply.text}`);
          reads += 1;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      // Writes during the rebuild reach the live tables first and must be in the rebuilt ones after the switch.
      let published = 0;
      const live = locations[29]!;
      const result = await replayProjection(loadLocationQueryConfig(service.env), READ_MODEL_REPLAY, {
        timeoutMs: REPLAY_TIMEOUT_MS,
        onProgress: () => {
          if (published < 5) {
            published += 1;
            void publish(
              service.bus,
              'LOCATION_UPDATED',
              { ...live, notes: `during replay ${published}` },
              2 + published,
            );
          }
        },
      });
      reading = false;
      await reader;

      expect(failures).toEqual([]);
      expect(reads).toBeGreaterThan(0);
      expect(result.groupId).toMatch(new RegExp(`^${service.groupId}\\.rebuild-`));
      expect(await indexes()).toEqual(indexesBefore);

      // The live consumer goes on with the rebuilt tables: a change after the switch is applied there.
      const after = { ...locations[0]!, notes: 'after the switch' };
      await publish(service.bus, 'LOCATION_UPDATED', after, 3);
      await waitFor(
        'the change after the switch',
        async () => (await service.get(`/locations/${after.id}`)).body?.notes === after.notes,
      );
      await waitUntilCaughtUp(service.bus, service.db, service.groupId, READ_MODEL_TOPICS);

      const expected = new Map(locations.map((location) => [location.id, location]));
      locations.slice(0, 10).forEach((location) => expected.set(location.id, { ...location, notes: 'second version' }));
      expected.set(after.id, after);
      expected.set(live.id, { ...live, notes: `during replay ${published}` });
      for (const id of ids) expect((await service.get(`/locations/${id}`)).body).toEqual(expected.get(id));
      expect((await service.get(`/location-groups/${group.id}`)).body).toEqual({
        ...group,
        name: `${group.name} (renamed)`,
      });
      expect(await rowsOf('locations', ids)).toHaveLength(30);
      // Nothing of the replay's group is left; the live read model and the change feed keep theirs.
      const { rows } = await service.db.query(`SELECT group_id FROM consumer_offsets WHERE group_id NOT IN ($1, $2)`, [
        service.groupId,
        `${service.groupId}-changes`,
      ]);
      expect(rows).toEqual([]);
    },
    REPLAY_TIMEOUT_MS + 60_000,
  );
});
