import { randomUUID } from 'node:crypto';
import { aGeography } from '@lx/domain/testing';
import { aNewLocation, countersAgreeWithFacts, inTransaction, projectedEvent, useSchemaBefore } from '@lx/testing';
import { MIGRATIONS } from '../../src/database/migrations';
import { AddStatisticsRollups1797379200000 } from '../../src/database/migrations/1797379200000-AddStatisticsRollups';
import { LocationFactsProjection } from '../../src/facts/location-facts.projection';

/**
 * The rollups migration on a schema as the previous release left it: the backfill from the facts, the trigger that
 * keeps the rollups for the previous release's writers while its pods drain (they write facts and counters, never
 * rollups), this release's projection beside it (the trigger must leave its writes alone: no double count), and down.
 */
describe('AddStatisticsRollups migration', () => {
  const { db, schema, up, down } = useSchemaBefore(
    'sp_rollups_migration',
    MIGRATIONS,
    AddStatisticsRollups1797379200000,
  );
  const GROUP = 'a3bb189e-8bf9-4888-9912-ace4e6543002';

  /** A fact as the previous release's projection upserts it (the same statement shape, no rollups). */
  const previousReleaseWrites = (fact: {
    id: string;
    version: number;
    status: string | null;
    group: string | null;
    country: string;
    region: string;
    updatedAt: string;
  }) =>
    db.query(
      `INSERT INTO location_facts AS f (location_id, version, status, has_address, has_coordinates, location_group_id,
         address_group_id, country, region, locality, postal_code, updated_at)
       VALUES ($1, $2, $3, true, false, $4, NULL, $5, $6, 'Town', '80202', $7)
       ON CONFLICT (location_id) DO UPDATE SET version = EXCLUDED.version, status = EXCLUDED.status,
         location_group_id = EXCLUDED.location_group_id, country = EXCLUDED.country, region = EXCLUDED.region,
         updated_at = EXCLUDED.updated_at
       WHERE f.version < EXCLUDED.version`,
      [fact.id, fact.version, fact.status, fact.group, fact.country, fact.region, fact.updatedAt],
    );
  const expectRollupsToEqualRecount = async () => {
    const agreement = await countersAgreeWithFacts(db);
    expect(agreement.rollups).toEqual(agreement.factsByRollup);
    return agreement.rollups as unknown[];
  };

  it('backfills the rollups, keeps them for the previous release and for this one alike, and goes down again', async () => {
    // Facts of the previous release on both sides of a month and a year boundary.
    const existing = [
      { updatedAt: '2023-12-31T23:59:59.999999Z', group: GROUP, country: 'US', region: 'CO', status: 'ACTIVE' },
      { updatedAt: '2024-01-01T00:00:00Z', group: null, country: 'US', region: 'TX', status: null },
      { updatedAt: '2024-01-31T12:00:00Z', group: GROUP, country: 'CA', region: 'ON', status: 'PLANNED' },
      { updatedAt: '2024-02-01T00:00:00Z', group: null, country: 'CA', region: 'CO', status: 'ACTIVE' },
    ].map((fact) => ({ ...fact, id: randomUUID(), version: 1 }));
    for (const fact of existing) await previousReleaseWrites(fact);

    expect(await up()).toEqual([AddStatisticsRollups1797379200000.name]);
    expect(await expectRollupsToEqualRecount()).toHaveLength(4 * 3 * 2 + 2 * 3 * 2);

    // The previous release's pods go on writing: a new fact, then an update that moves it across every dimension,
    // a stale version (no change), and an update of a backfilled fact.
    const drained = { id: randomUUID(), version: 1, status: 'PLANNED', group: null, country: 'US', region: 'CO' };
    await previousReleaseWrites({ ...drained, updatedAt: '2024-02-29T23:59:59Z' });
    await previousReleaseWrites({
      ...drained,
      version: 2,
      status: null,
      group: GROUP,
      region: 'TX',
      updatedAt: '2024-03-01T00:00:00Z',
    });
    await previousReleaseWrites({ ...drained, version: 1, updatedAt: '2024-05-01T00:00:00Z' });
    await previousReleaseWrites({ ...existing[0]!, version: 2, group: null, updatedAt: '2024-01-15T08:00:00Z' });
    await expectRollupsToEqualRecount();

    // This release's projection beside them: its own rollups, which the trigger must not add a second time.
    const projection = new LocationFactsProjection();
    const created = aNewLocation({
      status: 'ACTIVE',
      updatedAt: '2024-03-02T10:00:00Z',
      geography: aGeography({ country: 'US', region: 'CO' }),
    });
    const apply = (...events: ReturnType<typeof projectedEvent>[]) =>
      inTransaction(db, () => projection.apply(db, events));
    await apply(
      projectedEvent('LOCATION_CREATED', created, 1),
      projectedEvent('LOCATION_UPDATED', { ...created, locationGroupId: GROUP, updatedAt: '2024-04-01T00:00:00Z' }, 2),
    );
    await expectRollupsToEqualRecount();
    // Its update path (a stored fact leaves its rows), of its own location and of one the previous release wrote.
    await apply(
      projectedEvent(
        'LOCATION_UPDATED',
        { ...created, geography: aGeography({ country: 'CA', region: 'ON' }), updatedAt: '2024-04-02T08:00:00Z' },
        3,
      ),
      projectedEvent(
        'LOCATION_UPDATED',
        aNewLocation({ id: drained.id, status: 'RETIRED', updatedAt: '2024-01-31T23:59:59.999999Z' }),
        3,
      ),
    );
    const rollups = await expectRollupsToEqualRecount();
    // The rows this release's move emptied (version 2's day, and its group's month) are gone, not kept as zeros.
    // (The previous release's writes leave theirs: the trigger only adds.)
    const { rows: emptied } = await db.query<{ scope: string; granularity: string; locations: string }>(
      `SELECT scope, granularity, locations FROM location_rollups WHERE period = '2024-04-01' ORDER BY 1, 2`,
    );
    expect(emptied).toEqual(
      ['all', 'country', 'region'].map((scope) => ({ scope, granularity: 'month', locations: '1' })),
    );
    expect(rollups.length).toBeGreaterThan(0);
    // The previous release writes again, on the connection this release's transactions used: still counted.
    await previousReleaseWrites({ ...drained, version: 4, status: 'ACTIVE', updatedAt: '2024-02-15T00:00:00Z' });
    await expectRollupsToEqualRecount();

    await down();
    const { rows } = await db.query<{ relname: string }>(
      `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relname LIKE '%rollups%' OR (n.nspname = $1 AND c.relname LIKE 'location_facts_%_idx')
        ORDER BY 1`,
      [schema],
    );
    expect(rows.map((row) => row.relname)).toEqual([
      'location_facts_address_group_id_idx',
      'location_facts_locality_idx',
      'location_facts_location_group_id_idx',
      'location_facts_postal_code_idx',
      'location_facts_region_updated_at_idx',
      'location_facts_updated_at_idx',
    ]);
    // The previous release writes on after a rollback, without the trigger.
    await previousReleaseWrites({ ...drained, version: 5, updatedAt: '2024-06-01T00:00:00Z' });
  });
});
