import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions, runMigrations } from '@lx/platform';
import { requireEnv, uniqueSuffix, waitFor } from '@lx/testing';
import { MIGRATIONS } from '../../src/database/migrations';
import { holdRelayLock, unpublishedEvents } from '../support/gate';
import { aLocationBody, startLocationCommand } from '../support/location-command-harness';

/** Migrates `schema` with `migrations` (all of them by default) in a data source of its own, then closes it. */
async function migrate(schema: string, migrations: readonly (typeof MIGRATIONS)[number][] = MIGRATIONS) {
  const config = { url: requireEnv('DATABASE_URL'), schema, poolSize: 2, migrateOnBoot: true };
  await runMigrations(new DataSource(dataSourceOptions({ config, entities: [], migrations: [...migrations] })));
}

/** A LOCATION_CREATED envelope as the previous version recorded it. */
function envelope(id: string) {
  const now = new Date().toISOString();
  const data = { id, createdAt: now, updatedAt: now, ...aLocationBody() };
  return { id: randomUUID(), type: 'LOCATION_CREATED', timestamp: now, source: 'location-command', data };
}

/** The upgrade from the version whose relay published an outbox table, against real Postgres and Kafka. */
describe('migration to the event log as the outbox', () => {
  it('starts the relay just before the first event the old relay had not published, so nothing is lost or sent twice', async () => {
    const schema = `lc_it_upgrade_${uniqueSuffix()}`;
    await migrate(schema, MIGRATIONS.slice(0, 2));
    const ids = Array.from({ length: 5 }, () => randomUUID());
    const events = ids.map(envelope);
    const lock = await holdRelayLock(schema);
    const setup = new DataSource(
      dataSourceOptions({
        config: { url: requireEnv('DATABASE_URL'), schema, poolSize: 1, migrateOnBoot: false },
        entities: [],
        migrations: [],
      }),
    );
    await setup.initialize();
    try {
      // What the previous version left: five events, the first two of them published by its relay.
      for (const [index, event] of events.entries()) {
        await setup.query(
          `INSERT INTO events (stream_id, stream_type, stream_version, event_id, event_type, payload, recorded_at)
           VALUES ($1, 'location', 1, $2, 'LOCATION_CREATED', $3, $4)`,
          [ids[index], event.id, JSON.stringify(event), event.timestamp],
        );
        await setup.query(
          `INSERT INTO outbox (topic, message_key, value, headers, published_at) VALUES ('location.events.v1', $1, $2, $3, $4)`,
          [ids[index], JSON.stringify(event), { 'lx-aggregate-version': '1' }, index < 2 ? new Date() : null],
        );
      }
      await migrate(schema);
      const [checkpoint] = await setup.query<{ tx_id: string; position: string }[]>(
        'SELECT tx_id::text, position::text FROM relay_checkpoint',
      );
      const [third] = await setup.query<{ global_position: string }[]>(
        'SELECT global_position::text FROM events WHERE event_id = $1',
        [events[2]!.id],
      );
      expect(checkpoint).toEqual({ tx_id: '0', position: String(Number(third!.global_position) - 1) });

      const service = await startLocationCommand({ DATABASE_SCHEMA: schema });
      try {
        await lock.release();
        await waitFor('the relay to pass every event', async () => (await unpublishedEvents(service.db)) === 0);
        await service.events.waitFor(3, ids);
        expect(
          service.events
            .of(...ids)
            .map((message) => message.event.id)
            .sort(),
        ).toEqual(
          events
            .slice(2)
            .map((event) => event.id)
            .sort(),
        );
      } finally {
        await service.close();
      }
    } finally {
      await lock.release();
      await setup.destroy();
    }
  }, 120_000);
});
