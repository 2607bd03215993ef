import { randomUUID } from 'node:crypto';
import { changeDeliveryOf, type ChangeEventType, type EventOf, type LocationGroup } from '@lx/contracts';
import { aNewLocation, inTransaction, projectedEvent, usePrivateSchema } from '@lx/testing';
import { LocationChangesProjection } from '../../src/change-feed/infrastructure/location-changes.projection';
import { MIGRATIONS } from '../../src/database/migrations';

/**
 * Each guard of the change feed's projection on its own: apply is called directly, one transaction per batch, over
 * the migrated tables of a private schema (through Kafka one guard can hide another, or the consumer's dead-lettering
 * of a unique violation hides a missing ON CONFLICT).
 */
describe('change feed projection guards, each alone (apply in real transactions)', () => {
  const { db, connect } = usePrivateSchema('lq_feed_guards', MIGRATIONS);
  const projection = new LocationChangesProjection();
  type Projected = ReturnType<typeof projectedEvent>;
  const applyBatch = (events: Projected[]) => inTransaction(db, () => projection.apply(db, events));

  const history = () => {
    const location = aNewLocation();
    return [1, 2, 3].map((version) =>
      projectedEvent(
        version === 1 ? 'LOCATION_CREATED' : 'LOCATION_UPDATED',
        { ...location, notes: `v${version}` },
        version,
      ),
    ) as [Projected, Projected, Projected];
  };
  const versionsOf = async (id: string) => {
    const { rows } = await db.query<{ version: number }>(
      `SELECT version FROM location_changes WHERE resource_id = $1 ORDER BY tx_id, seq`,
      [id],
    );
    return rows.map((row) => row.version);
  };
  const idOf = (event: Projected) => (event.event.data as { id: string }).id;

  it('given the same event in two batches, then it is in the feed once (event id)', async () => {
    const [v1] = history();
    await applyBatch([v1]);
    await applyBatch([v1]);
    expect(await versionsOf(idOf(v1))).toEqual([1]);
  });

  it('given another event at a version already in the feed, then it is passed over (resource and version)', async () => {
    const [v1, v2] = history();
    await applyBatch([v1, v2]);
    await applyBatch([{ ...v2, event: { ...v2.event, id: randomUUID() } }]);
    expect(await versionsOf(idOf(v1))).toEqual([1, 2]);
  });

  it('given version 3 and then version 2 in later batches, then version 2 is passed over (newer in the feed)', async () => {
    const [v1, v2, v3] = history();
    await applyBatch([v1]);
    await applyBatch([v3]);
    await applyBatch([v2]);
    expect(await versionsOf(idOf(v1))).toEqual([1, 3]);
  });

  it('given version 3 before version 2 in one batch, then version 2 is passed over (newer earlier in the batch)', async () => {
    const [v1, v2, v3] = history();
    await applyBatch([v1, v3, v2]);
    expect(await versionsOf(idOf(v1))).toEqual([1, 3]);
  });

  it('given a batch, then its rows follow its order and each body is the webhook body of its event', async () => {
    const [v1, v2, v3] = history();
    const group: LocationGroup = { id: randomUUID(), name: 'Phase 2', type: 'OTHER' };
    const groupCreated = projectedEvent('LOCATION_GROUP_CREATED', group, 1);
    const batch = [v1, groupCreated, v2, v3];
    await applyBatch(batch);
    const { rows } = await db.query<{ body: string; resource_type: string }>(
      `SELECT body::text AS body, resource_type FROM location_changes WHERE resource_id = ANY($1) ORDER BY tx_id, seq`,
      [[idOf(v1), group.id]],
    );
    expect(rows.map((row) => row.body)).toEqual(
      batch.map((projected) =>
        JSON.stringify(changeDeliveryOf(projected.event as EventOf<ChangeEventType>, projected.version)),
      ),
    );
    expect(rows.map((row) => row.resource_type)).toEqual(['location', 'locationGroup', 'location', 'location']);
  });

  it('given a concurrent transaction with a higher id that committed first, then the batch applies (no false alarm)', async () => {
    const [first] = history();
    const [second] = history();
    const other = connect();
    await other.connect();
    try {
      await db.query('BEGIN');
      await db.query('SELECT pg_current_xact_id()');
      // Another partition's transaction: a higher id, committed before this one writes.
      await inTransaction(other, async () => {
        await other.query('SELECT pg_current_xact_id()');
        await projection.apply(other, [second]);
      });
      await projection.apply(db, [first]);
      await db.query('COMMIT');
    } catch (error) {
      await db.query('ROLLBACK');
      throw error;
    } finally {
      await other.end();
    }
    expect(await versionsOf(idOf(first))).toEqual([1]);
    expect(await versionsOf(idOf(second))).toEqual([1]);
  });
});
