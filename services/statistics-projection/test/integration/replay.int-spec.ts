import { randomUUID } from 'node:crypto';
import { type Location, TOPICS } from '@lx/contracts';
import { replayProjection, type RebuildProgress } from '@lx/messaging';
import { aNewLocation, countersAgreeWithFacts, expectedCounts, publish, waitFor, waitUntilCaughtUp } from '@lx/testing';
import { loadStatisticsProjectionConfig } from '../../src/config/statistics-projection.config';
import { STATISTICS_REPLAY } from '../../src/replay/replay-statistics';
import { startStatistics, type StatisticsHarness } from '../support/statistics-harness';

const REPLAY_TIMEOUT_MS = 15 * 60_000;
const TOPIC_NAMES = [TOPICS.locationEvents.name];

/**
 * The SRE replay of the statistics: the facts alone from offset 0 of the shared topic (everything every test and
 * benchmark ever published, so it takes as long as the log is long), the counters and rollups derived from them once
 * caught up, then the full projection up to the switch. Writes published in each phase must be counted exactly.
 */
describe('statistics-projection replay', () => {
  let service: StatisticsHarness;

  beforeAll(async () => {
    service = await startStatistics();
  }, 60_000);

  afterAll(() => service?.close());

  /** Every index of the schema with its definition (the replay builds some of them anew at its end). */
  const indexes = async () =>
    (
      await service.db.query(
        `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1, 2`,
      )
    ).rows;

  it(
    'rebuilds the facts, derives the counters and rollups, and counts the writes of every phase exactly after the switch',
    async () => {
      const group = randomUUID();
      const state = new Map<string, { location: Location; version: number }>();
      const write = async (location: Location) => {
        const version = (state.get(location.id)?.version ?? 0) + 1;
        state.set(location.id, { location, version });
        await publish(service.bus, version === 1 ? 'LOCATION_CREATED' : 'LOCATION_UPDATED', location, version);
      };
      for (let index = 0; index < 20; index += 1) {
        await write(
          aNewLocation({
            locationGroupId: group,
            updatedAt: `2024-0${1 + (index % 3)}-1${index % 10}T12:00:00Z`,
            fiberAccessDetails: { serviceability: { status: index % 2 === 0 ? 'PLANNED' : 'ACTIVE' } },
          }),
        );
      }
      await waitUntilCaughtUp(service.bus, service.db, service.groupId, TOPIC_NAMES);
      const indexesBefore = await indexes();

      // One change published in each phase, each moving a location to another status and month.
      const ids = [...state.keys()];
      const phases: RebuildProgress['phase'][] = [];
      const writes: Promise<void>[] = [];
      const moved = (index: number): Location => ({
        ...state.get(ids[index]!)!.location,
        updatedAt: '2024-06-30T23:59:59Z',
        fiberAccessDetails: { serviceability: { status: 'CONSTRUCTION' } },
      });
      const result = await replayProjection(loadStatisticsProjectionConfig(service.env), STATISTICS_REPLAY, {
        timeoutMs: REPLAY_TIMEOUT_MS,
        onProgress: ({ phase }) => {
          if (phases.includes(phase)) return;
          phases.push(phase);
          if (phase !== 'completing') writes.push(write(moved(phases.length)));
        },
      });
      await Promise.all(writes);

      expect(phases).toEqual(['bulk', 'completing', 'full']);
      expect(result.groupId).toMatch(new RegExp(`^${service.groupId}\\.rebuild-`));
      expect(result.completingSeconds).toBeGreaterThan(0);
      expect(await indexes()).toEqual(indexesBefore);
      // And one after the switch.
      await write(moved(0));
      await waitUntilCaughtUp(service.bus, service.db, service.groupId, TOPIC_NAMES);

      const locations = [...state.values()].map((entry) => entry.location);
      for (const query of [`locationGroupId=${group}`, `locationGroupId=${group}&modifiedSince=2024-06-01T00:00:00Z`]) {
        const keep = query.includes('modifiedSince')
          ? (location: Location) => location.updatedAt >= '2024-06-01'
          : () => true;
        await waitFor(`statistics of ${query}`, async () => {
          const reply = await service.get(`/locations/statistics?${query}`);
          const { queryTimestamp: _queryTimestamp, ...counts } = reply.body as Record<string, unknown>;
          return JSON.stringify(counts) === JSON.stringify(expectedCounts(locations.filter(keep)));
        });
      }
      const agreement = await countersAgreeWithFacts(service.db);
      expect(agreement.counters).toEqual(agreement.facts);
      expect(agreement.geoByRegion).toEqual(agreement.factsByRegion);
      expect(agreement.dayCounters).toEqual(agreement.factsByDay);
      expect(agreement.rollups).toEqual(agreement.factsByRollup);
      const { rows } = await service.db.query(`SELECT DISTINCT group_id FROM consumer_offsets`);
      expect(rows).toEqual([{ group_id: service.groupId }]);
    },
    REPLAY_TIMEOUT_MS + 60_000,
  );
});
