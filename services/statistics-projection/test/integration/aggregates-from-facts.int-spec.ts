import type { Location } from '@lx/contracts';
import { aGeography } from '@lx/domain/testing';
import { aNewLocation, countersAgreeWithFacts, inTransaction, projectedEvent, usePrivateSchema } from '@lx/testing';
import { MIGRATIONS } from '../../src/database/migrations';
import { fillAggregatesFromFacts } from '../../src/facts/aggregates-from-facts';
import { LocationFactsProjection } from '../../src/facts/location-facts.projection';
import { LIVE_TABLES } from '../../src/facts/statistics-tables';

/**
 * A replay's two ways to the same tables: the full projection keeping every counters table and the rollups batch by
 * batch, and the facts alone followed by fillAggregatesFromFacts. Both must leave exactly the same rows, over locations
 * spread across statuses, shapes, groups, countries, regions and days on both sides of a month and a year boundary,
 * with updates that move them between all of those.
 */
describe('the counters and rollups derived from the facts (a replay after its facts-only pass)', () => {
  const { db } = usePrivateSchema('sp_fill', MIGRATIONS);
  const GROUPS = ['3f0c2a1e-7b6d-4c5e-8f9a-0b1c2d3e4f50', '9e8d7c6b-5a49-4837-a625-1403f2e1d0c9'];
  const DAYS = ['2023-12-31T23:59:59.999Z', '2024-01-01T00:00:00Z', '2024-01-31T12:00:00Z', '2024-02-01T08:30:00Z'];
  const PLACES = [
    ['US', 'CO'],
    ['US', 'TX'],
    ['CA', 'ON'],
  ] as const;
  const STATUSES = ['PLANNED', 'ACTIVE', undefined] as const;

  /** The i-th location of a varied set: every dimension cycles at its own pace. */
  function varied(index: number, base?: Location): Location {
    const [country, region] = PLACES[index % PLACES.length]!;
    const status = STATUSES[Math.floor(index / 2) % STATUSES.length];
    const location = aNewLocation({
      ...(base === undefined ? {} : { id: base.id, createdAt: base.createdAt }),
      updatedAt: DAYS[index % DAYS.length]!,
      geography: aGeography({ country, region }),
      locationGroupId: index % 3 === 2 ? undefined : GROUPS[index % 2],
      ...(status === undefined ? {} : { fiberAccessDetails: { serviceability: { status } } }),
    });
    if (status === undefined) delete (location as { fiberAccessDetails?: unknown }).fiberAccessDetails;
    if (index % 5 === 0) delete (location as { coordinates?: unknown }).coordinates;
    return location;
  }

  const created = Array.from({ length: 48 }, (_, index) => varied(index));
  // Every third location moves to the cells of another index, some twice.
  const updates = created.flatMap((location, index) =>
    index % 3 === 0 ? [varied(index + 7, location), ...(index % 6 === 0 ? [varied(index + 11, location)] : [])] : [],
  );
  const events = [
    ...created.map((location) => projectedEvent('LOCATION_CREATED', location, 1)),
    ...updates.map((location) => {
      const version = updates.filter((other) => other.id === location.id).indexOf(location) + 2;
      return projectedEvent('LOCATION_UPDATED', location, version);
    }),
  ];

  const aggregates = async () => {
    const rows = async (table: string) =>
      (
        await db.query(
          `SELECT to_jsonb(t) - 'locations' AS cell, locations::int AS n FROM "${table}" AS t
            WHERE locations <> 0 ORDER BY 1`,
        )
      ).rows;
    return {
      counters: await rows(LIVE_TABLES.counters),
      geoCounters: await rows(LIVE_TABLES.geoCounters),
      dayCounters: await rows(LIVE_TABLES.dayCounters),
      rollups: await rows(LIVE_TABLES.rollups),
    };
  };
  const everyTable = Object.values(LIVE_TABLES).join(', ');
  /** Applies the events in batches of 10, each in one transaction, as the consumer would. */
  const applyAll = async (projection: LocationFactsProjection) => {
    for (let start = 0; start < events.length; start += 10) {
      await inTransaction(db, () => projection.apply(db, events.slice(start, start + 10)));
    }
  };

  it('leaves exactly the rows the full projection keeps, and again when run a second time', async () => {
    await applyAll(new LocationFactsProjection());
    const kept = await aggregates();
    const facts = (await db.query(`SELECT * FROM location_facts ORDER BY location_id`)).rows;
    expect(facts).toHaveLength(created.length);
    expect(kept.rollups.length).toBeGreaterThan(100);

    await db.query(`TRUNCATE ${everyTable}`);
    await applyAll(LocationFactsProjection.factsOnly(LIVE_TABLES));
    expect((await db.query(`SELECT * FROM location_facts ORDER BY location_id`)).rows).toEqual(facts);
    // Idempotent by version as every projection: every event again, and the creations after the updates, change nothing.
    await applyAll(LocationFactsProjection.factsOnly(LIVE_TABLES));
    await inTransaction(db, () => LocationFactsProjection.factsOnly(LIVE_TABLES).apply(db, events.slice(0, 10)));
    expect((await db.query(`SELECT * FROM location_facts ORDER BY location_id`)).rows).toEqual(facts);
    expect(await aggregates()).toEqual({ counters: [], geoCounters: [], dayCounters: [], rollups: [] });

    await inTransaction(db, () => fillAggregatesFromFacts(db, LIVE_TABLES));
    expect(await aggregates()).toEqual(kept);
    await inTransaction(db, () => fillAggregatesFromFacts(db, LIVE_TABLES));
    expect(await aggregates()).toEqual(kept);

    const agreement = await countersAgreeWithFacts(db);
    expect(agreement.counters).toEqual(agreement.facts);
    expect(agreement.geoByRegion).toEqual(agreement.factsByRegion);
    expect(agreement.dayCounters).toEqual(agreement.factsByDay);
    expect(agreement.rollups).toEqual(agreement.factsByRollup);

    // The full projection goes on over the derived tables as over its own.
    const later = varied(1, created[0]);
    const version = 2 + updates.filter((location) => location.id === created[0]!.id).length;
    await inTransaction(db, () =>
      new LocationFactsProjection().apply(db, [projectedEvent('LOCATION_UPDATED', later, version)]),
    );
    const after = await countersAgreeWithFacts(db);
    expect(after.rollups).toEqual(after.factsByRollup);
    expect(after.dayCounters).toEqual(after.factsByDay);
    expect(after.rollups).not.toEqual(agreement.rollups);
  });
});
