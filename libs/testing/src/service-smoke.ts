import { readFile } from 'node:fs/promises';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { ConfigError, migrateSchema, provisionSchemaOwner } from '@lx/platform';
import {
  documentedRoutes,
  ingressServiceOf,
  isDocumentationFile,
  isUnroutedByDesign,
  pathOf,
  registeredRoutes,
} from './api-routes';
import { loginUrl, startPrivatePostgres, verifyFullEnv, type PrivatePostgres } from './private-postgres';
import { waitFor } from './wait-for';

export interface ServiceUnderTest {
  name: string;
  /**
   * The service's default schema and the tables its migrations create there, each with its columns in order as
   * `name type` (`format_type`), followed by ` not null` where the column is.
   */
  schema: string;
  tables: Readonly<Record<string, readonly string[]>>;
  /** Names of the readiness checks /health/ready must report. */
  readiness: string[];
  /** Environment variables the service cannot start without. */
  required: string[];
  loadConfig(env: NodeJS.ProcessEnv): unknown;
  createApp(env: NodeJS.ProcessEnv): Promise<NestFastifyApplication>;
}

/**
 * The shared table in which projections store their consumed offsets (createConsumerOffsetsTable of
 * @lx/messaging); every service that has one must have exactly this shape.
 */
export const CONSUMER_OFFSETS_COLUMNS: readonly string[] = [
  'group_id text not null',
  'topic text not null',
  'partition integer not null',
  'next_offset bigint not null',
  'updated_at timestamp with time zone not null',
];

/** The columns of `rate_limit_counts`, the table of every service that limits its requests (RateLimitModule). */
export const RATE_LIMIT_COUNTS_COLUMNS: readonly string[] = [
  'subject text not null',
  'window_start bigint not null',
  'requests bigint not null',
];

/** The shared outbox table (createOutboxTable of @lx/messaging). */
export const OUTBOX_COLUMNS: readonly string[] = [
  'position bigint not null',
  'topic text not null',
  'message_key text not null',
  'value text not null',
  'headers jsonb not null',
  'created_at timestamp with time zone not null',
  'published_at timestamp with time zone',
];

/** Every table of the schema with its columns, as ServiceUnderTest.tables states them (the migrations table too). */
async function tablesIn(url: string, schema: string): Promise<Record<string, string[]>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ table_name: string; columns: string[] }>(
      `SELECT c.relname AS table_name,
              array_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
                        || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END ORDER BY a.attnum) AS columns
         FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')
        GROUP BY c.relname`,
      [schema],
    );
    return Object.fromEntries(result.rows.map((row) => [row.table_name, row.columns]));
  } finally {
    await client.end();
  }
}

/** The service's own tables (without TypeORM's migrations table). */
async function serviceTablesIn(url: string, schema: string): Promise<Record<string, string[]>> {
  const { migrations, ...tables } = await tablesIn(url, schema);
  if (migrations === undefined) throw new Error(`schema ${schema} has no migrations table`);
  return tables;
}

/**
 * The foundation's checks for one service, against real infrastructure: configuration fails fast
 * naming the setting; migrations apply to (and revert from) its own schema on a real Postgres, as the
 * service's own role (provisioned as `migrate` does it, logged in with its password over verified TLS);
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
      const tls = verifyFullEnv(postgres.caFile);
      const url = loginUrl(postgres.url, service.schema, `${service.schema}-password`);
      await provisionSchemaOwner({
        adminUrl: postgres.url,
        url,
        schema: service.schema,
        ssl: { mode: tls.DATABASE_SSL_MODE, ca: await readFile(tls.DATABASE_SSL_CA_FILE, 'utf8') },
      });
      app = await service.createApp({
        ...process.env,
        ...tls,
        DATABASE_URL: url,
        LOG_LEVEL: 'warn',
        READINESS_GRACE_MS: '1000',
      });
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

    it('creates its tables with their columns in its own schema, and its migrations revert and re-apply', async () => {
      expect(await serviceTablesIn(postgres.url, service.schema)).toEqual(service.tables);

      const dataSource = app.get(DataSource);
      while ((await dataSource.query('SELECT count(*)::int AS n FROM migrations'))[0].n > 0) {
        await dataSource.undoLastMigration({ transaction: 'each' });
      }
      expect(await serviceTablesIn(postgres.url, service.schema)).toEqual({});

      await migrateSchema(dataSource, service.schema);
      expect(await serviceTablesIn(postgres.url, service.schema)).toEqual(service.tables);
    });

    it('works as its own role, which owns its schema and nothing else, over TLS', async () => {
      const [login] = await app
        .get(DataSource)
        .query<{ role: string; superuser: boolean; ssl: boolean; owner: string }[]>(
          `SELECT current_user AS role, r.rolsuper AS superuser, s.ssl,
                (SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = $1) AS owner
           FROM pg_roles r, pg_stat_ssl s WHERE r.rolname = current_user AND s.pid = pg_backend_pid()`,
          [service.schema],
        );
      expect(login).toEqual({ role: service.schema, superuser: false, ssl: true, owner: service.schema });
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

    it('answers a known path asked with another method 405 with Allow, before asking for a token', async () => {
      const response = await app.getHttpAdapter().getInstance().inject({ method: 'DELETE', url: '/health/live' });
      expect(response.statusCode).toBe(405);
      expect(response.headers['allow']).toBe('GET, HEAD');
      expect(response.json()).toEqual({
        error: { code: 'METHOD_NOT_ALLOWED', message: 'DELETE is not allowed on /health/live; allowed: GET, HEAD' },
      });
    });

    it('registers exactly the operations of the OpenAPI document the ingress routes to it, and no other public route', () => {
      const registered = registeredRoutes(app).filter((route) => !isDocumentationFile(route));
      const routedHere = registered.filter((route) => ingressServiceOf(pathOf(route)) === service.name);
      const documentedHere = documentedRoutes().filter((route) => ingressServiceOf(pathOf(route)) === service.name);
      expect(routedHere).toEqual([...documentedHere].sort());
      // What the ingress does not send here is a probe, metrics or an internal API, never routed elsewhere either.
      const rest = registered.filter((route) => !routedHere.includes(route));
      expect(rest.filter((route) => !isUnroutedByDesign(pathOf(route)))).toEqual([]);
    });

    it('is not ready once Postgres has been stopped for READINESS_GRACE_MS, and ready again once it is back', async () => {
      expect((await get('/health/ready')).statusCode).toBe(200);
      await postgres.stop();
      // Within the grace (1 s here): still ready, the failure reported under its check.
      const failing = await get('/health/ready');
      expect(failing.statusCode).toBe(200);
      expect(failing.json().details.database).toMatchObject({ status: 'up', failing: expect.any(String) });
      let down = failing;
      await waitFor('readiness to answer 503', async () => (down = await get('/health/ready')).statusCode === 503);
      const body = down.json();
      expect(body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(body.error.details.error.database.status).toBe('down');
      expect((await get('/health/live')).statusCode).toBe(200);

      await postgres.start();
      await waitFor('readiness after Postgres restarted', async () => (await get('/health/ready')).statusCode === 200);
    }, 60_000);
  });
}
