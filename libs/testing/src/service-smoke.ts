import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { ConfigError, migrateSchema } from '@lx/platform';
import { startPrivatePostgres, type PrivatePostgres } from './private-postgres';
import { waitFor } from './wait-for';

export interface ServiceUnderTest {
  name: string;
  /** The service's default schema and the tables its migrations create there. */
  schema: string;
  tables: string[];
  /** Names of the readiness checks /health/ready must report. */
  readiness: string[];
  /** Environment variables the service cannot start without. */
  required: string[];
  loadConfig(env: NodeJS.ProcessEnv): unknown;
  createApp(env: NodeJS.ProcessEnv): Promise<NestFastifyApplication>;
}

async function tablesIn(url: string, schema: string): Promise<string[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
      [schema],
    );
    return result.rows.map((row) => row.table_name);
  } finally {
    await client.end();
  }
}

/**
 * The foundation's checks for one service, against real infrastructure: configuration fails fast
 * naming the setting; migrations apply to (and revert from) its own schema on a real Postgres;
 * health, metrics and the error body; readiness follows Postgres going away and coming back.
 * Each run gets a private Postgres cluster, so stopping it disturbs no other test.
 */
export function describeServiceSmoke(service: ServiceUnderTest): void {
  describe(`${service.name} service`, () => {
    let postgres: PrivatePostgres;
    let app: NestFastifyApplication;
    const get = (url: string, headers: Record<string, string> = {}) =>
      app.getHttpAdapter().getInstance().inject({ method: 'GET', url, headers });

    beforeAll(async () => {
      postgres = await startPrivatePostgres();
      app = await service.createApp({ ...process.env, DATABASE_URL: postgres.url, LOG_LEVEL: 'warn' });
      await app.init();
      await app.getHttpAdapter().getInstance().ready();
    }, 120_000);

    afterAll(async () => {
      await app?.close();
      await postgres?.destroy();
    });

    it('refuses to start without its required settings, naming each one', () => {
      let error: unknown;
      try {
        service.loadConfig({ HTTP_PORT: 'eighty' });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems;
      expect(problems).toContain('HTTP_PORT: Expected number');
      for (const name of service.required) expect(problems).toContain(`${name} is required`);
    });

    it('creates its tables in its own schema, and its migrations revert and re-apply', async () => {
      expect(await tablesIn(postgres.url, service.schema)).toEqual([...service.tables, 'migrations'].sort());

      const dataSource = app.get(DataSource);
      while ((await dataSource.query('SELECT count(*)::int AS n FROM migrations'))[0].n > 0) {
        await dataSource.undoLastMigration({ transaction: 'each' });
      }
      expect(await tablesIn(postgres.url, service.schema)).toEqual(['migrations']);

      await migrateSchema(dataSource, service.schema);
      expect(await tablesIn(postgres.url, service.schema)).toEqual([...service.tables, 'migrations'].sort());
    });

    it('is live, and ready while its dependencies answer', async () => {
      expect((await get('/health/live')).statusCode).toBe(200);
      const ready = await get('/health/ready');
      expect(ready.statusCode).toBe(200);
      expect(Object.keys(ready.json().info).sort()).toEqual([...service.readiness].sort());
    });

    it('serves Prometheus metrics with process and HTTP request metrics', async () => {
      await get('/health/live');
      const metrics = await get('/metrics');
      expect(metrics.statusCode).toBe(200);
      expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
      expect(metrics.body).toContain('process_cpu_user_seconds_total');
      expect(metrics.body).toMatch(/http_request_duration_seconds_bucket\{.*route="\/health\/live".*\}/);
    });

    it('requires a bearer token before routing, answering in the spec error body and echoing the request id', async () => {
      const response = await get('/no/such/route', { 'x-request-id': 'smoke-test-1' });
      expect(response.statusCode).toBe(401);
      expect(response.headers['x-request-id']).toBe('smoke-test-1');
      expect(response.headers['www-authenticate']).toBe('Bearer realm="location-exchange"');
      expect(response.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Missing bearer token' } });
    });

    it('is not ready while Postgres is stopped, and ready again once it is back', async () => {
      await postgres.stop();
      const down = await get('/health/ready');
      expect(down.statusCode).toBe(503);
      const body = down.json();
      expect(body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(body.error.details.error.database.status).toBe('down');
      expect((await get('/health/live')).statusCode).toBe(200);

      await postgres.start();
      await waitFor('readiness after Postgres restarted', async () => (await get('/health/ready')).statusCode === 200);
    }, 60_000);
  });
}
