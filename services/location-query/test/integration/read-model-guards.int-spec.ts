import { randomUUID } from 'node:crypto';
import type { AddressGroup, Location, LocationGroup } from '@lx/contracts';
import { aNewLocation, inTransaction, projectedEvent, uniqueSuffix, usePrivateSchema } from '@lx/testing';
import { MIGRATIONS } from '../../src/database/migrations';
import { LocationReadModelProjection } from '../../src/read-model/location-read-model.projection';

/**
 * Each safety layer of the read model on its own. The projection's apply is called directly, in transactions of this
 * test, over the real tables (the service's migrations in a private schema; no consumer, no topic): through Kafka the
 * layers cover for each other. Two publishes may arrive in one batch, where the in-batch reduction hides a missing
 * version condition; and v1 and v2 of one aggregate in one batch without the reduction fail the upsert ("ON CONFLICT
 * DO UPDATE command cannot affect row a second time", SQLSTATE 21000), which the consumer then retries message by
 * message, where it succeeds: no wrong row, so nothing a test through Kafka could see. Here one transaction is one batch. The third layer, the
 * stored-offset skip, is the consumer's and shared by every projection: see
 * libs/messaging/test/integration/projection/projection-redelivery.int-spec.ts.
 */
describe('location read model safety layers, each alone (apply in real transactions)', () => {
  const { db } = usePrivateSchema('lq_guards', MIGRATIONS);
  const projection = new LocationReadModelProjection();

  type Projected = ReturnType<typeof projectedEvent>;
  /** One batch: one apply in one transaction. */
  const applyBatch = (events: Projected[]) => inTransaction(db, () => projection.apply(db, events));

  /** A kind of aggregate: its table, its events at versions 1, 2, 3, and what its stored row says. */
  interface Kind {
    table: string;
    /** The events of one new aggregate at versions 1, 2 and 3, each carrying a different state. */
    history(): [Projected, Projected, Projected];
    stored(id: string): Promise<{ version: number; state: unknown } | undefined>;
    /** The state an event carries, in the stored form. */
    stateOf(event: Projected): unknown;
  }

  const location: Kind = {
    table: 'locations',
    history() {
      const created = aNewLocation({ notes: 'v1' });
      const at = (notes: string, seconds: number): Location => ({
        ...created,
        notes,
        updatedAt: new Date(Date.parse(created.updatedAt) + seconds * 1000).toISOString(),
      });
      return [
        projectedEvent('LOCATION_CREATED', created, 1),
        projectedEvent('LOCATION_UPDATED', at('v2', 1), 2),
        projectedEvent('LOCATION_UPDATED', at('v3', 2), 3),
      ];
    },
    async stored(id) {
      const { rows } = await db.query<{ version: number; body: Location }>(
        `SELECT version, body FROM locations WHERE id = $1`,
        [id],
      );
      return rows[0] && { version: rows[0].version, state: rows[0].body.notes };
    },
    stateOf: (event) => (event.event.data as Location).notes,
  };

  const group = (table: string, prefix: 'LOCATION_GROUP' | 'ADDRESS_GROUP', type: 'OTHER' | 'MDU_COMPLEX'): Kind => ({
    table,
    history() {
      const created = { id: randomUUID(), name: `g-${uniqueSuffix()}`, type } as LocationGroup | AddressGroup;
      const renamed = { ...created, name: `${created.name} renamed` };
      // The newest version is a deletion: a stale create or update arriving after it must not bring the group back.
      return [
        projectedEvent(`${prefix}_CREATED`, created, 1),
        projectedEvent(`${prefix}_UPDATED`, renamed, 2),
        projectedEvent(`${prefix}_DELETED`, renamed, 3),
      ];
    },
    async stored(id) {
      const { rows } = await db.query<{ version: number; name: string; deleted: boolean }>(
        `SELECT version, name, deleted FROM ${table} WHERE id = $1`,
        [id],
      );
      return rows[0] && { version: rows[0].version, state: { name: rows[0].name, deleted: rows[0].deleted } };
    },
    stateOf: (event) => ({
      name: (event.event.data as LocationGroup).name,
      deleted: event.event.type.endsWith('_DELETED'),
    }),
  });

  const kinds: [string, Kind][] = [
    ['a location', location],
    ['a location group', group('location_groups', 'LOCATION_GROUP', 'OTHER')],
    ['an address group', group('address_groups', 'ADDRESS_GROUP', 'MDU_COMPLEX')],
  ];
  const idOf = (event: Projected) => (event.event.data as { id: string }).id;

  describe('version condition of the upsert', () => {
    it.each(kinds)(
      'given %s at version 3, when versions 1 and 2 arrive in later batches, then version 3 stays',
      async (_name, kind) => {
        const [v1, v2, v3] = kind.history();
        await applyBatch([v1]);
        await applyBatch([v3]);

        // Each stale event alone in its own batch: the in-batch reduction has nothing to choose from.
        await applyBatch([v2]);
        await applyBatch([v1]);

        expect(await kind.stored(idOf(v3))).toEqual({ version: 3, state: kind.stateOf(v3) });
      },
    );
  });

  describe('in-batch reduction to the newest version', () => {
    it.each(kinds)(
      'given versions 1, 2 and 3 of %s in one batch, one of them new and one stored, then each is at version 3',
      async (_name, kind) => {
        const [fresh1, fresh2, fresh3] = kind.history();
        const [known1, known2, known3] = kind.history();
        await applyBatch([known1]);

        await applyBatch([fresh1, known2, fresh2, known3, fresh3]);

        expect(await kind.stored(idOf(fresh3))).toEqual({ version: 3, state: kind.stateOf(fresh3) });
        expect(await kind.stored(idOf(known3))).toEqual({ version: 3, state: kind.stateOf(known3) });
        const { rows } = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${kind.table} WHERE id = ANY($1::uuid[])`,
          [[idOf(fresh3), idOf(known3)]],
        );
        expect(rows[0]!.n).toBe(2);
      },
    );
  });
});
