import { Client } from 'pg';
import type { Location } from '@lx/contracts';
import { aGeography } from '@lx/domain/testing';
import { classifyFailure } from '@lx/messaging';
import {
  aNewLocation,
  countersAgreeWithFacts,
  inTransaction,
  projectedEvent,
  recountFacts,
  usePrivateSchema,
  waitFor,
} from '@lx/testing';
import { MIGRATIONS } from '../../src/database/migrations';
import { LocationFactsProjection } from '../../src/facts/location-facts.projection';

/**
 * Each safety layer of the statistics projection on its own. The projection's apply is called directly, in
 * transactions of this test, over the real tables (the service's migrations in a private schema; no consumer, no
 * topic), because through the consumer the layers cover for each other: two publishes may arrive in one batch, where
 * the in-batch reduction hides the other layers; without the reduction, v1 and v2 in one batch fail the facts upsert
 * ("ON CONFLICT DO UPDATE command cannot affect row a second time", SQLSTATE 21000), which the consumer then retries
 * message by message, where it succeeds, so the counters stay right and a test through Kafka passes. Here one
 * transaction is one batch. The stored-offset skip is the consumer's and shared by every projection: see
 * libs/messaging/test/integration/projection/projection-redelivery.int-spec.ts.
 */
describe('statistics projection safety layers, each alone (apply in real transactions)', () => {
  const { db, connect } = usePrivateSchema('sp_guards', MIGRATIONS);
  const projection = new LocationFactsProjection();

  type Projected = ReturnType<typeof projectedEvent>;
  /** One batch: one apply in one transaction of `client`. */
  const applyBatch = (events: Projected[], client: Client = db) =>
    inTransaction(client, () => projection.apply(client, events));

  /**
   * Versions 1, 2 and 3 of a new location, each in another counters cell of every table: another status, shape,
   * grouping, country and region, and UTC day of updatedAt.
   */
  function history(): [Projected, Projected, Projected] {
    const v1 = aNewLocation({
      status: 'PLANNED',
      updatedAt: '2024-05-01T23:59:59.999Z',
      geography: aGeography({ country: 'US', region: 'CO' }),
    });
    const { coordinates: _coordinates, ...withoutCoordinates } = v1;
    const v2: Location = {
      ...withoutCoordinates,
      locationGroupId: '7d1c1f0e-5b1a-4c3e-9f4e-8a2b3c4d5e6f',
      fiberAccessDetails: { serviceability: { status: 'CONSTRUCTION' } },
      updatedAt: '2024-05-02T00:00:00Z',
      geography: aGeography({ country: 'CA', region: 'ON' }),
    };
    const { address: _address, fiberAccessDetails: _fiber, ...withoutAddress } = v1;
    const v3: Location = {
      ...withoutAddress,
      updatedAt: '2024-05-03T12:00:00Z',
      geography: aGeography({ country: 'US', region: 'TX' }),
    };
    return [
      projectedEvent('LOCATION_CREATED', v1, 1),
      projectedEvent('LOCATION_UPDATED', v2, 2),
      projectedEvent('LOCATION_UPDATED', v3, 3),
    ];
  }
  const idOf = (event: Projected) => (event.event.data as Location).id;
  const factOf = async (id: string) => {
    const { rows } = await db.query<{ version: number; status: string | null; region: string }>(
      `SELECT version, status, region FROM location_facts WHERE location_id = $1`,
      [id],
    );
    return rows[0];
  };
  /** Every counters table (overall, per country and region, per day) equals a recount of the facts. */
  const expectCountersToEqualRecount = async () => {
    const agreement = await countersAgreeWithFacts(db);
    expect(agreement.counters).toEqual(agreement.facts);
    expect(agreement.geoByRegion).toEqual(agreement.factsByRegion);
    expect(agreement.dayCounters).toEqual(agreement.factsByDay);
    expect(agreement.rollups).toEqual(agreement.factsByRollup);
  };
  const counterRows = async () =>
    (
      await db.query(
        `SELECT 'overall' AS t, '' AS k, status, has_address, has_coordinates, has_location_group, locations
           FROM location_counters
         UNION ALL SELECT 'geo', country || '/' || region, status, has_address, has_coordinates, has_location_group,
                          locations FROM location_geo_counters
         UNION ALL SELECT 'day', day::text, status, has_address, has_coordinates, has_location_group, locations
           FROM location_day_counters
         ORDER BY 1, 2, 3, 4, 5, 6`,
      )
    ).rows;

  it('given versions 1, 2 and 3 of a location in one batch, one of them new and one stored, then each fact is at version 3 and every counters table equals a recount (in-batch reduction)', async () => {
    const [fresh1, fresh2, fresh3] = history();
    const [known1, known2, known3] = history();
    await applyBatch([known1]);

    // Applying every version's delta would count each location up to three times.
    await applyBatch([fresh1, known2, fresh2, known3, fresh3]);

    expect(await factOf(idOf(fresh3))).toEqual({ version: 3, status: null, region: 'TX' });
    expect(await factOf(idOf(known3))).toEqual({ version: 3, status: null, region: 'TX' });
    await expectCountersToEqualRecount();
    expect((await recountFacts(db, 'location_id = ANY($1::uuid[])', [[idOf(fresh3), idOf(known3)]])).totalCount).toBe(
      2,
    );
  });

  it('given a location at version 3, when versions 2, 1 and 3 arrive again in later batches, then nothing fails and no counter moves (counters move only when the fact changes)', async () => {
    const [v1, v2, v3] = history();
    await applyBatch([v1]);
    await applyBatch([v3]);
    const before = await counterRows();

    // Each alone in its own batch: the in-batch reduction has nothing to choose from.
    await applyBatch([v2]);
    await applyBatch([v1]);
    await applyBatch([v3]);

    expect(await factOf(idOf(v3))).toEqual({ version: 3, status: null, region: 'TX' });
    expect(await counterRows()).toEqual(before);
    await expectCountersToEqualRecount();
  });

  /**
   * A batch of `late` in a second transaction while a first transaction has applied `early` to the same new location
   * and not yet committed: the second sees no stored fact and waits on the first's uncommitted row in the primary
   * key; then the first commits. The second's error, or undefined.
   */
  async function race(early: Projected, late: Projected): Promise<unknown> {
    const first = connect();
    const second = connect();
    await first.connect();
    await second.connect();
    try {
      const secondPid = (await second.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await first.query('BEGIN');
      await projection.apply(first, [early]);
      const outcome = applyBatch([late], second).then(
        () => undefined,
        (error: unknown) => error,
      );
      await waitFor('the second transaction to wait for the first', async () => {
        const { rows } = await db.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`, [
          secondPid,
        ]);
        return rows.length === 1;
      });
      await first.query('COMMIT');
      return await outcome;
    } finally {
      await first.end();
      await second.end();
    }
  }

  /*
   * The version condition of the facts upsert (WHERE f.version < EXCLUDED.version) is a guard of its own only when the
   * projection's read of the stored fact (SELECT … FOR UPDATE) cannot see the row: a concurrent transaction inserting
   * the same new location. In sequential batches the stored version is read first and a stale event never reaches the
   * upsert (previous test). The consumer serialises the batches of a partition through the consumer_offsets row lock,
   * and a location is always on one partition, so this interleaving needs two transactions started by hand.
   */
  it('given two transactions applying versions 2 and 1 of a new location at once, then the fact is version 2 and it is counted once (version condition of the facts upsert)', async () => {
    const [v1, v2] = history();
    // The stale event is not written (the version condition), so it moves nothing.
    expect(await race(v2, v1)).toBeUndefined();

    expect(await factOf(idOf(v2))).toEqual({ version: 2, status: 'CONSTRUCTION', region: 'ON' });
    expect((await recountFacts(db, 'location_id = $1', [idOf(v2)])).totalCount).toBe(1);
    await expectCountersToEqualRecount();
  });

  /*
   * The other order: the second transaction's newer version updates a fact its read could not see (inserted by the
   * first, uncommitted then), so it cannot know which cells that fact left. It fails as transient, the consumer retries
   * the batch, and the retry reads the stored fact: counted once.
   */
  it('given two transactions applying versions 1 and 2 of a new location at once, then the later fails to be retried and the retry counts the location once', async () => {
    const [v1, v2] = history();
    const failure = await race(v1, v2);
    expect(failure).toBeInstanceOf(Error);
    expect(classifyFailure(failure)).toBe('transient');
    await applyBatch([v2]);

    expect(await factOf(idOf(v2))).toEqual({ version: 2, status: 'CONSTRUCTION', region: 'ON' });
    expect((await recountFacts(db, 'location_id = $1', [idOf(v2)])).totalCount).toBe(1);
    await expectCountersToEqualRecount();
  });
});
