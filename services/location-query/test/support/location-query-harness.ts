import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { type Scope, TOPICS } from '@lx/contracts';
import { KafkaEventBus } from '@lx/messaging';
import { createServiceApp } from '@lx/platform';
import {
  positionAtLogEnd,
  requireEnv,
  startTestTokenIssuer,
  testKafka,
  type TestTokenIssuer,
  uniqueSuffix,
} from '@lx/testing';
import { AppModule } from '../../src/app.module';
import { loadLocationQueryConfig } from '../../src/config/location-query.config';
import { MIGRATIONS } from '../../src/database/migrations';

export const READ_MODEL_TOPICS = [
  TOPICS.locationEvents.name,
  TOPICS.locationGroupEvents.name,
  TOPICS.addressGroupEvents.name,
];

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test code reads replies field by field
  body: any;
  text: string;
}

/** location-query in this process, on a schema and consumer group of its own, fed from now on. */
export interface LocationQueryHarness {
  app: NestFastifyApplication;
  schema: string;
  groupId: string;
  env: NodeJS.ProcessEnv;
  issuer: TestTokenIssuer;
  /** Publishes to the shared topics. */
  bus: KafkaEventBus;
  /** On the shared database, search_path on the test's schema. */
  db: Client;
  get(url: string, options?: { headers?: Record<string, string>; token?: string | null }): Promise<Reply>;
  close(): Promise<void>;
}

export async function startLocationQuery(settings: Record<string, string> = {}): Promise<LocationQueryHarness> {
  const suffix = uniqueSuffix();
  const schema = `lq_it_${suffix}`;
  const groupId = `it-lq-${suffix}`;
  const databaseUrl = requireEnv('DATABASE_URL');
  const kafka = testKafka(`it-lq-publisher-${suffix}`);
  await positionAtLogEnd({ databaseUrl, kafka, schema, groupId, topics: READ_MODEL_TOPICS, migrations: MIGRATIONS });
  const issuer = await startTestTokenIssuer();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...issuer.env,
    DATABASE_SCHEMA: schema,
    PROJECTION_GROUP_ID: groupId,
    LOG_LEVEL: 'warn',
    ...settings,
  };
  const config = loadLocationQueryConfig(env);
  const app = await createServiceApp('location-query', AppModule.register(config), config.http);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  const bus = new KafkaEventBus(kafka);
  const db = new Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
  await db.connect();
  // Test tokens live ten minutes; long tests (replays) get a fresh one every five. /internal/ paths are read with the
  // internal services' scope, every other path with an RSP's.
  const tokens = new Map<Scope, { token: string; at: number }>();
  const currentToken = async (url: string) => {
    const scope: Scope = url.startsWith('/internal/') ? 'locations:internal' : 'locations:read';
    const cached = tokens.get(scope);
    if (cached !== undefined && Date.now() - cached.at <= 300_000) return cached.token;
    const token = await issuer.token({ scopes: [scope] });
    tokens.set(scope, { token, at: Date.now() });
    return token;
  };

  return {
    app,
    schema,
    groupId,
    env,
    issuer,
    bus,
    db,
    async get(url, options = {}) {
      const token = options.token === undefined ? await currentToken(url) : options.token;
      const headers: Record<string, string> = { ...options.headers };
      if (token !== null) headers['authorization'] = `Bearer ${token}`;
      const response = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url, headers });
      const text = response.body;
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      return { status: response.statusCode, headers: response.headers, body, text };
    },
    async close() {
      await app.close();
      await bus.close();
      await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
      await db.end();
      await issuer.close();
    },
  };
}
