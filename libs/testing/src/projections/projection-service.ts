import type { DynamicModule } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import type { MigrationInterface } from 'typeorm';
import type { Scope } from '@lx/contracts';
import { createServiceApp, type HttpConfig, type KafkaConfig } from '@lx/platform';
import { requireEnv, uniqueSuffix } from '../infra-env';
import type { Json } from '../replies';
import { startTestTokenIssuer, type TestTokenIssuer } from '../token-issuer';
import { testKafka } from '../kafka-topics';
import { positionAtLogEnd } from './projection-position';

/** A reply of the service, its body parsed when it is JSON (undefined otherwise) and its text as sent. */
export interface ProjectionServiceReply {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: Json;
  text: string;
}

/** A service that runs projections, in this process, on a schema and consumer group of its own, fed from now on. */
export interface ProjectionServiceHarness<Bus> {
  app: NestFastifyApplication;
  schema: string;
  groupId: string;
  /** The service's environment (for its CLI commands, such as the replay). */
  env: NodeJS.ProcessEnv;
  issuer: TestTokenIssuer;
  /** Publishes to the shared topics. */
  bus: Bus;
  /** On the shared database, search_path on the test's schema. */
  db: Client;
  /** A GET with a test token: the internal services' scope for /internal/ paths, an RSP's for others; `null`: none. */
  get(
    url: string,
    options?: { headers?: Record<string, string>; token?: string | null },
  ): Promise<ProjectionServiceReply>;
  close(): Promise<void>;
}

/**
 * Starts `service` with the configuration `load` reads from the test's environment (plus `settings`) and the module
 * `module` makes of it, after positioning its consumer group at the end of `topics` (so it is fed from now on).
 * Schema and group are named `<prefix>_it_<suffix>` and `it-<prefix>-<suffix>`. `bus` makes the test's publisher (the
 * service's lib, @lx/messaging, cannot be imported here: its own tests use this lib).
 */
export async function startProjectionService<
  Config extends { http: HttpConfig },
  Bus extends { close(): Promise<void> },
>(options: {
  service: string;
  prefix: string;
  topics: string[];
  migrations: (new () => MigrationInterface)[];
  load: (env: NodeJS.ProcessEnv) => Config;
  module: (config: Config) => DynamicModule;
  bus: (kafka: KafkaConfig) => Bus;
  settings?: Record<string, string>;
}): Promise<ProjectionServiceHarness<Bus>> {
  const suffix = uniqueSuffix();
  const schema = `${options.prefix}_it_${suffix}`;
  const groupId = `it-${options.prefix}-${suffix}`;
  const databaseUrl = requireEnv('DATABASE_URL');
  const kafka = testKafka(`it-${options.prefix}-publisher-${suffix}`);
  await positionAtLogEnd({
    databaseUrl,
    kafka,
    schema,
    groupId,
    topics: options.topics,
    migrations: options.migrations,
  });
  const issuer = await startTestTokenIssuer();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...issuer.env,
    DATABASE_SCHEMA: schema,
    PROJECTION_GROUP_ID: groupId,
    LOG_LEVEL: 'warn',
    // The tests that break a projection on purpose see readiness answer 503 after a second, not the default 20.
    READINESS_GRACE_MS: '1000',
    ...options.settings,
  };
  const config = options.load(env);
  const app = await createServiceApp(options.service, options.module(config), config.http);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  const bus = options.bus(kafka);
  const db = new Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
  await db.connect();
  // Test tokens live ten minutes; long tests (replays) get a fresh one every five.
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
    async get(url, { headers = {}, token } = {}) {
      const bearer = token === undefined ? await currentToken(url) : token;
      const sent: Record<string, string> = { ...headers };
      if (bearer !== null) sent['authorization'] = `Bearer ${bearer}`;
      const response = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url, headers: sent });
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
