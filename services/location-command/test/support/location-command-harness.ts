import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { TOPICS } from '@lx/contracts';
import { aLocationInput } from '@lx/domain/testing';
import { createServiceApp } from '@lx/platform';
import {
  kafkaOf,
  type EventLog,
  type Json,
  type Reply,
  requireEnv,
  startEventLog,
  startTestTokenIssuer,
  type TestTokenIssuer,
  uniqueSuffix,
} from '@lx/testing';
import { AppModule } from '../../src/app.module';
import { loadLocationCommandConfig } from '../../src/config/location-command.config';

export type { Json, Reply } from '@lx/testing';

export interface RequestOptions {
  body?: unknown;
  /** Sent as is (a string or a stream); `body` is sent as JSON. */
  payload?: string | NodeJS.ReadableStream;
  headers?: Record<string, string>;
  contentType?: string;
  /** Access token; defaults to one with locations:write. */
  token?: string | null;
}

/** The location-command service in this process, on a schema of its own, trusting a test token issuer. */
export interface LocationCommandHarness {
  app: NestFastifyApplication;
  schema: string;
  issuer: TestTokenIssuer;
  /** Env the service was started with (a child process can start another with the same settings). */
  env: NodeJS.ProcessEnv;
  /** A client on the shared database with search_path on the test's schema. */
  db: Client;
  events: EventLog;
  request(method: string, url: string, options?: RequestOptions): Promise<Reply>;
  /** Rows of the events table of these streams, in global order. */
  storedEvents(...streamIds: string[]): Promise<{ stream_id: string; stream_version: number; event_type: string }[]>;
  /** Stops the service in this process but keeps its schema (another process may take over). */
  stopApp(): Promise<void>;
  /** Stops everything and drops the schema. */
  close(): Promise<void>;
}

export async function startLocationCommand(settings: Record<string, string> = {}): Promise<LocationCommandHarness> {
  const schema = settings['DATABASE_SCHEMA'] ?? `lc_it_${uniqueSuffix()}`;
  const issuer = await startTestTokenIssuer();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...issuer.env,
    DATABASE_SCHEMA: schema,
    LOG_LEVEL: 'warn',
    OUTBOX_POLL_INTERVAL_MS: '20',
    ...settings,
  };
  const config = loadLocationCommandConfig(env);
  const app = await createServiceApp('location-command', AppModule.register(config), config.http);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();

  const db = new Client({ connectionString: requireEnv('DATABASE_URL'), options: `-c search_path=${schema}` });
  await db.connect();
  const events = await startEventLog(kafkaOf(config.eventBus), [
    TOPICS.locationEvents.name,
    TOPICS.locationGroupEvents.name,
    TOPICS.addressGroupEvents.name,
  ]);
  const writeToken = await issuer.token({ scopes: ['locations:write'] });
  let appStopped: Promise<void> | undefined;
  const stopApp = () => (appStopped ??= app.close());

  return {
    app,
    schema,
    issuer,
    env,
    db,
    events,
    async request(method, url, options = {}) {
      const token = options.token === undefined ? writeToken : options.token;
      const headers: Record<string, string> = { ...options.headers };
      if (token !== null) headers['authorization'] = `Bearer ${token}`;
      let payload = options.payload;
      if (options.body !== undefined) {
        payload = JSON.stringify(options.body);
        headers['content-type'] = options.contentType ?? 'application/json';
      } else if (options.contentType !== undefined) {
        headers['content-type'] = options.contentType;
      }
      const response = await app
        .getHttpAdapter()
        .getInstance()
        .inject({ method: method as 'GET', url, headers, payload: payload as string });
      const text = response.body;
      return {
        status: response.statusCode,
        headers: response.headers,
        body: text === '' ? undefined : parseJson(text),
      };
    },
    async storedEvents(...streamIds) {
      const { rows } = await db.query<{ stream_id: string; stream_version: number; event_type: string }>(
        `SELECT stream_id, stream_version, event_type FROM events WHERE stream_id = ANY($1::uuid[]) ORDER BY global_position`,
        [streamIds],
      );
      return rows;
    },
    stopApp,
    async close() {
      await events.close().catch(() => undefined);
      await stopApp();
      await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
      await db.end();
      await issuer.close();
    },
  };
}

/**
 * `aLocationInput` of `@lx/domain/testing` as the JSON body of a request. Overrides may be anything a client could
 * send (invalid values, unknown fields); `undefined` removes a field and `status` sets the serviceability status.
 */
export function aLocationBody(overrides: Record<string, Json> = {}): Record<string, Json> {
  return aLocationInput(overrides);
}

function parseJson(text: string): unknown {
  return JSON.parse(text) as unknown;
}
