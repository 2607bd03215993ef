import { randomUUID } from 'node:crypto';
import {
  type AddressGroup,
  addressGroupListSchema,
  type EventType,
  LOCATION_SNAPSHOT,
  type LocationGroup,
  locationGroupListSchema,
  validate,
} from '@lx/contracts';
import {
  inTransaction,
  projectedEvent,
  publish,
  uniqueSuffix,
  usePrivateSchema,
  useSchemaBefore,
  waitFor,
} from '@lx/testing';
import { MIGRATIONS } from '../../src/database/migrations';
import { AddGroupChangeTimes1797120000000 } from '../../src/database/migrations/1797120000000-AddGroupChangeTimes';
import { LocationReadModelProjection } from '../../src/read-model/location-read-model.projection';
import { type LocationQueryHarness, startLocationQuery } from '../support/location-query-harness';

type Prefix = 'LOCATION_GROUP' | 'ADDRESS_GROUP';
type Group = LocationGroup | AddressGroup;

/** The two kinds of group: table, event prefix, type, list path and key. */
const KINDS = [
  {
    table: 'location_groups',
    prefix: 'LOCATION_GROUP',
    type: 'OTHER',
    path: '/location-groups',
    key: 'locationGroups',
  },
  {
    table: 'address_groups',
    prefix: 'ADDRESS_GROUP',
    type: 'MDU_COMPLEX',
    path: '/address-groups',
    key: 'addressGroups',
  },
] as const;
type Kind = (typeof KINDS)[number];

const aGroup = (kind: Kind, name = `g-${uniqueSuffix()}`): Group => ({ id: randomUUID(), name, type: kind.type });
const eventType = (prefix: Prefix, change: 'CREATED' | 'UPDATED' | 'DELETED') => `${prefix}_${change}` as EventType;
/** A time `seconds` after `base`, as an event timestamp. */
const at = (base: number, seconds: number) => new Date(base + seconds * 1000).toISOString();

/** What the read model stores of a group's change times. */
interface StoredTimes {
  version: number;
  name: string;
  deleted: boolean;
  changedAt: string;
  deletedAt: string | null;
}

describe('group change times in the read model (apply in real transactions)', () => {
  const { db } = usePrivateSchema('lq_group_times', MIGRATIONS);
  const projection = new LocationReadModelProjection();
  type Projected = ReturnType<typeof projectedEvent>;
  const applyBatch = (events: Projected[]) => inTransaction(db, () => projection.apply(db, events));

  const stored = async (table: string, id: string): Promise<StoredTimes | undefined> => {
    const { rows } = await db.query<{
      version: number;
      name: string;
      deleted: boolean;
      changed_at: Date;
      deleted_at: Date | null;
    }>(`SELECT version, name, deleted, changed_at, deleted_at FROM ${table} WHERE id = $1`, [id]);
    const row = rows[0];
    return (
      row && {
        version: row.version,
        name: row.name,
        deleted: row.deleted,
        changedAt: row.changed_at.toISOString(),
        deletedAt: row.deleted_at?.toISOString() ?? null,
      }
    );
  };

  it.each(KINDS)(
    '$table: changed_at is the newest event timestamp and deleted_at the deletion time; stale events change neither',
    async (kind) => {
      const base = Date.parse('2024-05-01T10:00:00.000Z');
      const group = aGroup(kind);
      const renamed = { ...group, name: `${group.name} renamed` };
      const event = (change: 'CREATED' | 'UPDATED' | 'DELETED', data: Group, version: number, seconds: number) =>
        projectedEvent(eventType(kind.prefix, change), data, version, '0', at(base, seconds));

      await applyBatch([event('CREATED', group, 1, 1)]);
      expect(await stored(kind.table, group.id)).toEqual({
        version: 1,
        name: group.name,
        deleted: false,
        changedAt: at(base, 1),
        deletedAt: null,
      });

      await applyBatch([event('UPDATED', renamed, 2, 2)]);
      const deletion = event('DELETED', renamed, 3, 3);
      await applyBatch([deletion]);
      const tombstone = {
        version: 3,
        name: renamed.name,
        deleted: true,
        changedAt: at(base, 3),
        deletedAt: at(base, 3),
      };
      expect(await stored(kind.table, group.id)).toEqual(tombstone);

      // The same deletion again, and older versions timed later (a clock that went back): nothing moves.
      await applyBatch([deletion]);
      await applyBatch([event('UPDATED', { ...group, name: 'stale' }, 2, 9)]);
      await applyBatch([event('CREATED', group, 1, 10)]);
      expect(await stored(kind.table, group.id)).toEqual(tombstone);

      // A newer version brings the group back: live again, no deletion time.
      await applyBatch([event('CREATED', group, 4, 11)]);
      expect(await stored(kind.table, group.id)).toEqual({
        version: 4,
        name: group.name,
        deleted: false,
        changedAt: at(base, 11),
        deletedAt: null,
      });
    },
  );

  it.each(KINDS)('$table: within one batch, the times of the newest version win', async (kind) => {
    const base = Date.parse('2024-06-01T00:00:00.000Z');
    const group = aGroup(kind);
    await applyBatch([
      projectedEvent(eventType(kind.prefix, 'DELETED'), group, 2, '1', at(base, 2)),
      projectedEvent(eventType(kind.prefix, 'CREATED'), group, 1, '0', at(base, 1)),
    ]);
    expect(await stored(kind.table, group.id)).toEqual({
      version: 2,
      name: group.name,
      deleted: true,
      changedAt: at(base, 2),
      deletedAt: at(base, 2),
    });
  });
});

describe('AddGroupChangeTimes migration', () => {
  const { db, schema, up, down } = useSchemaBefore('lq_group_migration', MIGRATIONS, AddGroupChangeTimes1797120000000);
  const times = async (table: string, id: string) => {
    const { rows } = await db.query<{ deleted: boolean; changed_at: Date; deleted_at: Date | null }>(
      `SELECT deleted, changed_at, deleted_at FROM ${table} WHERE id = $1`,
      [id],
    );
    return rows[0];
  };

  it('gives existing groups the migration time, fills the times writers of the previous release leave out, and goes down again', async () => {
    const live = randomUUID();
    const deleted = randomUUID();
    for (const table of ['location_groups', 'address_groups']) {
      await db.query(
        `INSERT INTO ${table} (id, version, name, type, deleted) VALUES ($1, 1, 'live', 'T', false), ($2, 2, 'gone', 'T', true)`,
        [live, deleted],
      );
    }
    const before = Date.now();
    expect(await up()).toEqual([AddGroupChangeTimes1797120000000.name]);

    for (const table of ['location_groups', 'address_groups']) {
      // Existing rows: a time at or after the migration (never earlier than their real change: only repeats).
      const existingLive = await times(table, live);
      const existingDeleted = await times(table, deleted);
      expect(existingLive?.changed_at.getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(existingLive?.deleted_at).toBeNull();
      expect(existingDeleted?.deleted_at?.getTime()).toBe(existingDeleted?.changed_at.getTime());

      // The previous release's projection writes without the new columns: the trigger times its writes.
      const oldWriter = randomUUID();
      const upsert = (version: number, name: string, isDeleted: boolean) =>
        db.query(
          `INSERT INTO ${table} AS g (id, version, name, type, deleted) VALUES ($1, $2, $3, 'T', $4)
           ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version, name = EXCLUDED.name, deleted = EXCLUDED.deleted
           WHERE g.version < EXCLUDED.version`,
          [oldWriter, version, name, isDeleted],
        );
      await upsert(1, 'created', false);
      const created = await times(table, oldWriter);
      expect(created).toEqual({ deleted: false, changed_at: expect.any(Date) as unknown, deleted_at: null });
      await new Promise((resolve) => setTimeout(resolve, 20));
      await upsert(2, 'deleted', true);
      const gone = await times(table, oldWriter);
      expect(gone?.changed_at.getTime()).toBeGreaterThan(created!.changed_at.getTime());
      expect(gone?.deleted_at).toEqual(gone?.changed_at);

      // The constraint holds the columns together.
      await expect(
        db.query(`UPDATE ${table} SET deleted_at = NULL, deleted = true WHERE id = $1`, [live]),
      ).resolves.toBeDefined();
      expect((await times(table, live))?.deleted_at).not.toBeNull();
      await db.query(`ALTER TABLE ${table} DISABLE TRIGGER ${table}_change_times_trg`);
      await expect(db.query(`UPDATE ${table} SET deleted_at = NULL WHERE id = $1`, [deleted])).rejects.toThrow(
        /deleted_at_check/,
      );
    }

    await down();
    const { rows } = await db.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'location_groups' ORDER BY ordinal_position`,
      [schema],
    );
    expect(rows.map((row) => row.column_name)).toEqual(['id', 'version', 'name', 'type', 'deleted']);
  });
});

describe('group lists by modifiedSince and the snapshot with groups (through Kafka and HTTP)', () => {
  let service: LocationQueryHarness;

  beforeAll(async () => {
    service = await startLocationQuery();
  }, 60_000);

  afterAll(() => service?.close());

  const versionOf = async (table: string, id: string) => {
    const { rows } = await service.db.query<{ version: number }>(`SELECT version FROM ${table} WHERE id = $1`, [id]);
    return rows[0]?.version;
  };
  const waitForGroup = (table: string, id: string, version: number) =>
    waitFor(`${table} ${id} at version ${version}`, async () => (await versionOf(table, id)) === version);
  /**
   * A base time of the test's own, far ahead of any other data and a day after the previous test's (the tests of this
   * file run in order), so that modifiedSince selects only its groups.
   */
  let lastBase = Date.parse('2090-01-01T00:00:00.000Z');
  const ownBase = () => (lastBase += 86_400_000);
  const byId = <T extends { id: string }>(items: T[]) => [...items].sort((a, b) => a.id.localeCompare(b.id));

  /**
   * One kind's history, timed from `base`: three groups created at +1 s, +2 s and +3 s, the second renamed at +4 s,
   * the third deleted at +5 s, and one more created before `base`.
   */
  async function history(kind: Kind, base: number) {
    const tag = `hist-${uniqueSuffix()}`;
    const [first, second, third] = [1, 2, 3].map((n) => aGroup(kind, `${tag} ${n}`)) as [Group, Group, Group];
    const earlier = aGroup(kind, `${tag} earlier`);
    const renamed = { ...second, name: `${tag} 2 renamed` };
    const send = (change: 'CREATED' | 'UPDATED' | 'DELETED', group: Group, version: number, seconds: number) =>
      publish(service.bus, eventType(kind.prefix, change), group, version, { timestamp: at(base, seconds) });
    await send('CREATED', earlier, 1, -1);
    await send('CREATED', first, 1, 1);
    await send('CREATED', second, 1, 2);
    await send('CREATED', third, 1, 3);
    await send('UPDATED', renamed, 2, 4);
    await send('DELETED', third, 2, 5);
    await waitForGroup(kind.table, third.id, 2);
    await waitForGroup(kind.table, second.id, 2);
    await waitForGroup(kind.table, first.id, 1);
    await waitForGroup(kind.table, earlier.id, 1);
    const tombstone = { ...third, deletedAt: at(base, 5) };
    return { tag, first, renamed, third, tombstone, earlier };
  }

  it.each(KINDS)(
    '$path?modifiedSince= lists the groups changed after it by id, deleted ones as tombstones, and pages them with the total',
    async (kind) => {
      const base = ownBase();
      const { tag, first, renamed, third, tombstone, earlier } = await history(kind, base);
      const list = async (query: string) => {
        const reply = await service.get(`${kind.path}?${query}`);
        expect(reply.status).toBe(200);
        const valid =
          kind.key === 'locationGroups'
            ? validate(locationGroupListSchema, reply.body).ok
            : validate(addressGroupListSchema, reply.body).ok;
        expect(valid).toBe(true);
        return reply.body as Record<string, unknown>;
      };

      const since = encodeURIComponent(at(base, 0));
      expect(await list(`modifiedSince=${since}`)).toEqual({
        [kind.key]: byId([first, renamed, tombstone]),
        pagination: { limit: 100, offset: 0, total: 3 },
      });
      // Paging walks the same order; the total counts the tombstone too.
      const all = byId([first, renamed, tombstone]);
      expect(await list(`modifiedSince=${since}&limit=2&offset=1`)).toEqual({
        [kind.key]: all.slice(1, 3),
        pagination: { limit: 2, offset: 1, total: 3 },
      });
      expect(await list(`modifiedSince=${since}&limit=1&offset=3`)).toEqual({
        [kind.key]: [],
        pagination: { limit: 1, offset: 3, total: 3 },
      });
      // "After", as for locations: a change timed exactly at modifiedSince is not in it.
      expect(await list(`modifiedSince=${encodeURIComponent(at(base, 4))}`)).toEqual({
        [kind.key]: [tombstone],
        pagination: { limit: 100, offset: 0, total: 1 },
      });
      expect(await list(`modifiedSince=${encodeURIComponent(at(base, 3.999))}`)).toEqual({
        [kind.key]: byId([renamed, tombstone]),
        pagination: { limit: 100, offset: 0, total: 2 },
      });
      expect((await list(`modifiedSince=${encodeURIComponent(at(base, -2))}`))[kind.key]).toEqual(
        byId([earlier, first, renamed, tombstone]),
      );
      // The other filters apply to tombstones as well.
      expect(await list(`modifiedSince=${since}&name=${encodeURIComponent(`${tag} 3`)}&type=${kind.type}`)).toEqual({
        [kind.key]: [tombstone],
        pagination: { limit: 100, offset: 0, total: 1 },
      });

      // Without modifiedSince nothing changes: live groups only, by name, no deletedAt; a deleted group stays 404.
      expect(await list(`name=${encodeURIComponent(tag)}`)).toEqual({
        [kind.key]: [renamed, first, earlier].sort((a, b) => (a.name < b.name ? -1 : 1)),
        pagination: { limit: 100, offset: 0, total: 3 },
      });
      expect((await service.get(`${kind.path}/${third.id}`)).status).toBe(404);
      expect((await service.get(`${kind.path}/${renamed.id}`)).body).toEqual(renamed);
    },
  );

  it.each([
    [
      '/location-groups?modifiedSince=yesterday',
      'modifiedSince must be an ISO 8601 UTC date-time ending in Z, like 2024-01-31T09:30:00Z',
    ],
    [
      '/address-groups?modifiedSince=2024-05-01T10:00:00%2B01:00',
      'modifiedSince must be an ISO 8601 UTC date-time ending in Z, like 2024-01-31T09:30:00Z',
    ],
    [
      '/address-groups?modifiedSince=2024-05-01T10:00:00Z&modifiedSince=2024-05-02T10:00:00Z',
      'modifiedSince must be given once',
    ],
  ])('answers %s with 400 INVALID_FILTER naming modifiedSince', async (url, message) => {
    const reply = await service.get(url);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({
      code: 'INVALID_FILTER',
      message: expect.stringContaining('modifiedSince') as unknown,
      details: { issues: [{ field: 'modifiedSince', rule: expect.any(String) as unknown, message }] },
    });
  });

  /** A snapshot with groups: its headers and its lines, parsed. */
  async function snapshotWithGroups(query: string) {
    const reply = await service.get(`${LOCATION_SNAPSHOT.path}?groups=true&${query}`);
    expect(reply.status).toBe(200);
    const counts = {
      locations: Number(reply.headers[LOCATION_SNAPSHOT.totalCountHeader]),
      locationGroups: Number(reply.headers[LOCATION_SNAPSHOT.locationGroupCountHeader]),
      addressGroups: Number(reply.headers[LOCATION_SNAPSHOT.addressGroupCountHeader]),
    };
    const lines = reply.text === '' ? [] : reply.text.split('\n');
    expect(lines.pop() ?? '').toBe('');
    const items = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(items).toHaveLength(counts.locations + counts.locationGroups + counts.addressGroups);
    const locationGroups = items.slice(counts.locations, counts.locations + counts.locationGroups);
    const addressGroups = items.slice(counts.locations + counts.locationGroups);
    return { counts, locations: items.slice(0, counts.locations), locationGroups, addressGroups, text: reply.text };
  }

  it('streams the groups of the same snapshot after the locations: all live ones, or those changed after modifiedSince with tombstones', async () => {
    const base = ownBase();
    const [locationSide, addressSide] = [await history(KINDS[0], base), await history(KINDS[1], base)];

    const changed = await snapshotWithGroups(`modifiedSince=${encodeURIComponent(at(base, 0))}`);
    expect(changed.counts).toEqual({ locations: 0, locationGroups: 3, addressGroups: 3 });
    expect(changed.locationGroups).toEqual(byId([locationSide.first, locationSide.renamed, locationSide.tombstone]));
    expect(changed.addressGroups).toEqual(byId([addressSide.first, addressSide.renamed, addressSide.tombstone]));
    // Each line in the list item's field order, the text an export copies.
    expect(changed.text).toContain(`${JSON.stringify(locationSide.tombstone)}\n`);

    const full = await snapshotWithGroups('catchUp=true');
    expect(full.locationGroups.every((group) => group['deletedAt'] === undefined)).toBe(true);
    expect(full.addressGroups.every((group) => group['deletedAt'] === undefined)).toBe(true);
    for (const [side, items] of [
      [locationSide, full.locationGroups],
      [addressSide, full.addressGroups],
    ] as const) {
      expect(items).toEqual(expect.arrayContaining([side.first, side.renamed, side.earlier]));
      expect(items.map((group) => group['id'])).not.toContain(side.third.id);
      const ids = items.map((group) => String(group['id']));
      expect(ids).toEqual([...ids].sort());
    }
    const { rows } = await service.db.query<{ locations: number; location_groups: number; address_groups: number }>(
      `SELECT (SELECT count(*)::int FROM locations) AS locations,
              (SELECT count(*)::int FROM location_groups WHERE NOT deleted) AS location_groups,
              (SELECT count(*)::int FROM address_groups WHERE NOT deleted) AS address_groups`,
    );
    expect(full.counts).toEqual({
      locations: rows[0]!.locations,
      locationGroups: rows[0]!.location_groups,
      addressGroups: rows[0]!.address_groups,
    });
  });

  it('with catchUp=true, waits for the group topics too: a group published just before is in the snapshot', async () => {
    const base = ownBase();
    const group = aGroup(KINDS[1]);
    await publish(service.bus, 'ADDRESS_GROUP_CREATED', group, 1, { timestamp: at(base, 1) });
    const snapshot = await snapshotWithGroups(`catchUp=true&modifiedSince=${encodeURIComponent(at(base, 0))}`);
    expect(snapshot.addressGroups).toEqual([group]);
    expect(snapshot.locationGroups).toEqual([]);
  });

  it('refuses groups=true with format=csv, and sends no group counts without groups', async () => {
    const csv = await service.get(`${LOCATION_SNAPSHOT.path}?format=csv&groups=true`);
    expect(csv.status).toBe(400);
    expect(csv.body.error).toMatchObject({ code: 'INVALID_FILTER', details: { issues: [{ field: 'groups' }] } });
    const plain = await service.get(`${LOCATION_SNAPSHOT.path}?modifiedSince=2099-12-31T00:00:00Z`);
    expect(plain.status).toBe(200);
    expect(plain.headers[LOCATION_SNAPSHOT.locationGroupCountHeader]).toBeUndefined();
    expect(plain.text).toBe('');
  });
});
