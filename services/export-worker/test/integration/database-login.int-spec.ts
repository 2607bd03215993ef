import { randomUUID } from 'node:crypto';
import {
  asLogin,
  loginUrl,
  migrateAsOwnRole,
  runMigrateEntry,
  startPrivatePostgres,
  verifyFullEnv,
  type PrivatePostgres,
  type ServiceLogin,
} from '@lx/testing';
import { PEERLESS_EXPORT_WORKER_ENV } from '../support/export-worker-harness';

const appendEvent = `
  INSERT INTO location_command.events (stream_id, stream_type, stream_version, event_id, event_type, payload, recorded_at)
  VALUES ($1, 'location', 1, $2, 'LOCATION_CREATED', '{}', now())`;

// The event store is what every RSP mirrors: a foothold in the export worker must not forge or erase events.
describe("export-worker's own database login", () => {
  let postgres: PrivatePostgres;
  let locationCommand: ServiceLogin;
  let exportWorker: ServiceLogin;

  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    // A deployment from before one role per service: one login, not a superuser (as on a managed PostgreSQL), created
    // location-command's schema and owns its tables, functions and triggers. Kept as the administrator's login, it
    // lets the upgrade's `migrate` hand them to the service's own role.
    const former = loginUrl(postgres.url, 'location_exchange', 'former-password');
    await asLogin(
      postgres,
      postgres.url,
      async (db) => {
        await db.query(`CREATE ROLE location_exchange WITH LOGIN CREATEROLE PASSWORD 'former-password'`);
        await db.query('GRANT CREATE ON DATABASE lx_test TO location_exchange');
      },
      'disable',
    );
    await runMigrateEntry('location-command', { ...verifyFullEnv(postgres.caFile), DATABASE_URL: former });
    [locationCommand, exportWorker] = await Promise.all([
      migrateAsOwnRole(postgres, 'location-command', 'location_command', {}, former),
      migrateAsOwnRole(postgres, 'export-worker', 'export_worker', PEERLESS_EXPORT_WORKER_ENV, former),
    ]);
  }, 120_000);

  afterAll(async () => {
    await postgres?.destroy();
  });

  it("hands location-command's existing schema to its role, which then appends events as before", async () => {
    const owners = await asLogin(
      postgres,
      postgres.url,
      async (db) =>
        (
          await db.query(
            `SELECT DISTINCT pg_get_userbyid(owner) AS owner FROM (
               SELECT relowner AS owner FROM pg_class WHERE relnamespace = 'location_command'::regnamespace
               UNION ALL SELECT proowner FROM pg_proc WHERE pronamespace = 'location_command'::regnamespace
               UNION ALL SELECT nspowner FROM pg_namespace WHERE nspname = 'location_command') objects`,
          )
        ).rows,
      'disable',
    );
    expect(owners).toEqual([{ owner: 'location_command' }]);
    const appended = await asLogin(postgres, locationCommand.url, async (db) => {
      await db.query(appendEvent, [randomUUID(), randomUUID()]);
      return (await db.query('SELECT count(*)::int AS n FROM location_command.events')).rows;
    });
    expect(appended).toEqual([{ n: 1 }]);
  });

  it('ran its own migrations and reads and writes its own tables', async () => {
    const rows = await asLogin(postgres, exportWorker.url, async (db) => {
      await db.query('SELECT count(*) FROM export_worker.export_requests');
      await db.query(
        `INSERT INTO export_worker.outbox (topic, message_key, value, headers) VALUES ('t', 'k', 'v', '{}')`,
      );
      return (await db.query('SELECT topic FROM export_worker.outbox')).rows;
    });
    expect(rows).toEqual([{ topic: 't' }]);
  });

  it('cannot write, erase or read location_command.events', async () => {
    for (const [statement, values] of [
      [appendEvent, [randomUUID(), randomUUID()]],
      [`UPDATE location_command.events SET event_type = 'LOCATION_DELETED'`, []],
      ['DELETE FROM location_command.events', []],
      ['TRUNCATE location_command.events', []],
      ['SELECT payload FROM location_command.events', []],
    ] as const) {
      await expect(asLogin(postgres, exportWorker.url, (db) => db.query(statement, [...values]))).rejects.toThrow(
        'permission denied for schema location_command',
      );
    }
    const count = await asLogin(
      postgres,
      locationCommand.url,
      async (db) => (await db.query('SELECT count(*)::int AS n FROM location_command.events')).rows,
    );
    expect(count).toEqual([{ n: 1 }]);
  });
});
