import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { TOPICS } from '@lx/contracts';
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
import { loadStatisticsProjectionConfig } from '../../src/config/statistics-projection.config';
import { MIGRATIONS } from '../../src/database/migrations';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test code reads replies field by field
  body: any;
}

/** statistics-projection in this process, on a schema and consumer group of its own, fed from now on. */
export interface StatisticsHarness {
  app: NestFastifyApplication;
  schema: string;
  groupId: string;
  /** The service's environment (for its CLI commands, such as the replay). */
  env: NodeJS.ProcessEnv;
  issuer: TestTokenIssuer;
  bus: KafkaEventBus;
  db: Client;
  get(url: string, token?: string | null): Promise<Reply>;
  close(): Promise<void>;
}

export async function startStatistics(settings: Record<string, string> = {}): Promise<StatisticsHarness> {
  const suffix = uniqueSuffix();
  const schema = `sp_it_${suffix}`;
  const groupId = `it-sp-${suffix}`;
  const databaseUrl = requireEnv('DATABASE_URL');
  const kafka = testKafka(`it-sp-publisher-${suffix}`);
  await positionAtLogEnd({
    databaseUrl,
    kafka,
    schema,
    groupId,
    topics: [TOPICS.locationEvents.name],
    migrations: MIGRATIONS,
  });
  const issuer = await startTestTokenIssuer();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...issuer.env,
    DATABASE_SCHEMA: schema,
    PROJECTION_GROUP_ID: groupId,
    LOG_LEVEL: 'warn',
    ...settings,
  };
  const config = loadStatisticsProjectionConfig(env);
  const app = await createServiceApp('statistics-projection', AppModule.register(config), config.http);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  const bus = new KafkaEventBus(kafka);
  const db = new Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
  await db.connect();
  // Test tokens live ten minutes; long tests (replays) get a fresh one every five.
  let readToken = await issuer.token({ scopes: ['locations:read'] });
  let readTokenAt = Date.now();
  const currentToken = async () => {
    if (Date.now() - readTokenAt > 300_000) {
      readToken = await issuer.token({ scopes: ['locations:read'] });
      readTokenAt = Date.now();
    }
    return readToken;
  };
  return {
    app,
    schema,
    groupId,
    env,
    issuer,
    bus,
    db,
    async get(url, token) {
      const bearer = token === undefined ? await currentToken() : token;
      const response = await app
        .getHttpAdapter()
        .getInstance()
        .inject({ method: 'GET', url, headers: bearer === null ? {} : { authorization: `Bearer ${bearer}` } });
      return {
        status: response.statusCode,
        headers: response.headers,
        body: response.body === '' ? undefined : (JSON.parse(response.body) as unknown),
      };
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
