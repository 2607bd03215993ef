import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomBytes, randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { type ClientData, type EventType, KAFKA_HEADERS, TOPICS } from '@lx/contracts';
import { KafkaEventBus, type ProjectionConsumer, projectionConsumerToken } from '@lx/messaging';
import { type KafkaConfig, WebhookSecretTransport } from '@lx/platform';
import {
  aNewLocation,
  freePort,
  type Json,
  positionAtLogEnd,
  publish,
  REPO_ROOT,
  requireEnv,
  spawnTs,
  startTestTokenIssuer,
  testKafka,
  type TestTokenIssuer,
  type TsProcess,
  uniqueSuffix,
  waitFor,
} from '@lx/testing';
import { loadWebhookDispatcherConfig, type WebhookDispatcherConfig } from '../../src/config/webhook-dispatcher.config';
import { MIGRATIONS } from '../../src/database/migrations';
import { createWebhookDispatcherApp } from '../../src/webhook-dispatcher.app';

/** A webhook secret in the Standard Webhooks form, as auth makes them. */
export const aWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** One request a receiver got. */
export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What a receiver answers: a status with headers and body (after a delay), or 'hang' (never answers). */
export type Answer = { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | 'hang';

/**
 * An RSP's webhook receiver on loopback: records every request and answers as `answer` says, given the request and
 * how many earlier requests carried the same webhook-id (0 on a delivery's first attempt). The other tests of the file
 * publish location events to the same topic, and every dispatcher of the file fans them out to its subscribers too: a
 * test looks at its own events' requests (`receiptsOf`) and answers foreign ones so they do not disturb it.
 */
export interface Receiver {
  url: string;
  received: ReceivedRequest[];
  answer: (request: ReceivedRequest, attempt: number) => Answer;
  close(): Promise<void>;
}

/** Whether a request carries the event, or the location or export request, with this id. */
export const isAbout = (request: ReceivedRequest, id: string): boolean =>
  request.headers['x-event-id'] === id || request.body.includes(id);

/** The requests a receiver got about `id` (an event, location or export request id), oldest first. */
export const receiptsOf = (receiver: Receiver, id: string): ReceivedRequest[] =>
  receiver.received.filter((request) => isAbout(request, id));

/**
 * A self-signed certificate for 127.0.0.1 and localhost (made by the openssl command line, valid for a day): an HTTPS
 * receiver with it is one no trusted authority vouches for.
 */
export function aSelfSignedCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'lx-tls-'));
  try {
    execFileSync(
      'openssl',
      // prettier-ignore
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
        '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `tls`: serve HTTPS with this key and certificate (the URL is then https://). */
export async function startReceiver(
  answer: Receiver['answer'] = () => ({ status: 200 }),
  options: { tls?: { key: string; cert: string } } = {},
): Promise<Receiver> {
  const hanging = new Set<ServerResponse>();
  const receiver: Omit<Receiver, 'url' | 'close'> = { received: [], answer };
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received = {
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      receiver.received.push(received);
      const id = String(request.headers['webhook-id']);
      const attempt = receiver.received.filter((earlier) => earlier.headers['webhook-id'] === id).length - 1;
      const reply = receiver.answer(received, attempt);
      if (reply === 'hang') {
        hanging.add(response);
        return;
      }
      const send = () => {
        response.writeHead(reply.status, reply.headers ?? {});
        response.end(reply.body ?? '');
      };
      if (reply.delayMs === undefined) send();
      else setTimeout(send, reply.delayMs);
    });
  };
  const server = options.tls === undefined ? createServer(handle) : createHttpsServer(options.tls, handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign<Omit<Receiver, 'url' | 'close'>, Pick<Receiver, 'url' | 'close'>>(receiver, {
    url: `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}/hooks`,
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

export interface Dispatcher extends Omit<DispatcherWorld, 'close'> {
  app: NestFastifyApplication;
  /** Publishes a CLIENT_* event as auth does (the secret sealed for this client and version). */
  publishClient(
    type: Extract<EventType, `CLIENT_${string}`>,
    client: { clientId: string; webhookUrl?: string; secret?: string; enabled?: boolean },
    version: number,
  ): Promise<void>;
  /** Waits until the subscription of `clientId` is at `version`. */
  waitForSubscription(clientId: string, version: number): Promise<void>;
  deliveries(eventId: string): Promise<DeliveryRow[]>;
  attempts(deliveryId: string): Promise<AttemptRow[]>;
  metrics(): Promise<string>;
  /** An API call as `clientId` with `scopes` (no token when scopes is null). */
  call(
    method: 'GET' | 'POST' | 'PUT',
    url: string,
    as: { clientId?: string; scopes: string[] | null },
    body?: unknown,
  ): Promise<{ status: number; body: Json }>;
  close(): Promise<void>;
}

export interface DeliveryRow {
  id: string;
  client_id: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
}

export interface AttemptRow {
  attempt: number;
  attempted_at: Date;
  status_code: number | null;
  latency_ms: number;
  response_excerpt: string | null;
  error: string | null;
}

/** The world a dispatcher under test runs in: its schema, topics, consumer groups, transport key and token issuer. */
export interface DispatcherWorld {
  schema: string;
  env: NodeJS.ProcessEnv;
  /** The brokers and topic prefix of the world, for clients of the test's own. */
  kafka: KafkaConfig;
  bus: KafkaEventBus;
  db: Client;
  transport: WebhookSecretTransport;
  issuer: TestTokenIssuer;
  publishClient: Dispatcher['publishClient'];
  waitForSubscription: Dispatcher['waitForSubscription'];
  deliveries: Dispatcher['deliveries'];
  attempts: Dispatcher['attempts'];
  close(): Promise<void>;
}

/**
 * A schema and consumer groups of their own on the real Kafka and Postgres of the local infrastructure, and a
 * transport key of their own, on the topics of the test file (or of the benchmark: KAFKA_TOPIC_PREFIX in `settings`):
 * the subscriptions projection starts at the end of the client topic, so a dispatcher in this world sees only the
 * clients the test publishes. `settings` override the environment; `env` is what a dispatcher (in this process or a
 * child) starts with.
 */
export async function prepareDispatcherWorld(settings: Record<string, string> = {}): Promise<DispatcherWorld> {
  const suffix = uniqueSuffix();
  const databaseUrl = requireEnv('DATABASE_URL');
  const schema = `wh_${suffix}`;
  const group = `it-webhooks-${suffix}`;
  const key = randomBytes(32).toString('base64');
  const issuer = await startTestTokenIssuer();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...issuer.env,
    LOG_LEVEL: 'error',
    DATABASE_SCHEMA: schema,
    WEBHOOK_CONSUMER_GROUP: group,
    WEBHOOK_SECRET_TRANSPORT_KEY: key,
    WEBHOOK_ALLOWED_ADDRESS_KINDS: 'loopback',
    WEBHOOK_RETRY_JITTER: '0',
    WEBHOOK_POLL_INTERVAL: '100ms',
    WEBHOOK_CHECKPOINT_INTERVAL: '100ms',
    WEBHOOK_REBALANCE_INTERVAL: '200ms',
    ...settings,
  };
  const kafka = testKafka(`it-webhooks-publisher-${suffix}`, env);
  await positionAtLogEnd({
    databaseUrl,
    kafka,
    schema,
    groupId: `${group}-subscriptions`,
    topics: [TOPICS.clientEvents.name],
    migrations: MIGRATIONS,
  });
  const db = new Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
  await db.connect();
  const bus = new KafkaEventBus(kafka);
  const transport = new WebhookSecretTransport(Buffer.from(key, 'base64'));
  return {
    schema,
    env,
    kafka,
    bus,
    db,
    transport,
    issuer,
    publishClient: async (type, client, version) => {
      const data: ClientData = {
        clientId: client.clientId,
        name: `RSP ${client.clientId.slice(0, 8)}`,
        kind: 'RSP',
        scopes: ['locations:read'],
        enabled: client.enabled ?? true,
        ...(client.webhookUrl === undefined ? {} : { webhookUrl: client.webhookUrl }),
        ...(client.secret === undefined
          ? {}
          : { webhookSecretSealed: transport.seal(client.secret, { clientId: client.clientId, version }) }),
      };
      const event = { id: randomUUID(), type, timestamp: new Date().toISOString(), source: 'it-auth', data };
      await bus.publish(TOPICS.clientEvents.name, [
        {
          key: client.clientId,
          value: JSON.stringify(event),
          headers: { [KAFKA_HEADERS.aggregateVersion]: String(version) },
        },
      ]);
    },
    waitForSubscription: (clientId, version) =>
      waitFor(`subscription ${clientId} v${version}`, async () => {
        const { rows } = await db.query<{ version: number }>('SELECT version FROM subscriptions WHERE client_id = $1', [
          clientId,
        ]);
        return rows[0]?.version === version;
      }),
    // As the APIs show them: rows of messages that failed once, and the messages delivered at their first attempt.
    deliveries: async (eventId) =>
      (await db.query<DeliveryRow>('SELECT * FROM delivery_view WHERE event_id = $1 ORDER BY client_id', [eventId]))
        .rows,
    attempts: async (deliveryId) =>
      (
        await db.query<AttemptRow>('SELECT * FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt', [
          deliveryId,
        ])
      ).rows,
    close: async () => {
      await issuer.close();
      await bus.close();
      await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await db.end();
    },
  };
}

const MAIN = join(REPO_ROOT, 'services/webhook-dispatcher/src/main.ts');

/** A dispatcher process (a replica) in `world`, started, once it is ready. */
export async function startDispatcherProcess(world: DispatcherWorld): Promise<TsProcess> {
  const port = await freePort();
  const child = spawnTs(MAIN, { ...world.env, HTTP_HOST: '127.0.0.1', HTTP_PORT: String(port) });
  const url = `http://127.0.0.1:${port}/health/ready`;
  await waitFor(`a dispatcher ready on port ${port}`, async () => (await fetch(url)).status === 200, 90_000).catch(
    (error: Error) => {
      child.process.kill('SIGKILL');
      throw new Error(`${error.message}\n${child.output()}`);
    },
  );
  return child;
}

/** The resident memory of a process, from /proc, in MB. */
export function residentMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** The dispatcher in this process, started, once its intake has joined its consumer group. */
export async function startWebhookDispatcherApp(config: WebhookDispatcherConfig): Promise<NestFastifyApplication> {
  const { app, start } = await createWebhookDispatcherApp(config);
  await start();
  await waitFor(
    'the intake to join its group',
    () =>
      Promise.resolve(
        app.get<ProjectionConsumer>(projectionConsumerToken('notifications')).health().state === 'joined',
      ),
    60_000,
  );
  return app;
}

/** A webhook dispatcher in this process, in a world of its own (prepareDispatcherWorld); `settings` as there. */
export async function startDispatcher(settings: Record<string, string> = {}): Promise<Dispatcher> {
  const world = await prepareDispatcherWorld(settings);
  const app = await startWebhookDispatcherApp(loadWebhookDispatcherConfig(world.env));
  return {
    ...world,
    app,
    metrics: async () => (await app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/metrics' })).body,
    call: async (method, url, as, body) => {
      const headers: Record<string, string> = {};
      if (as.scopes !== null) {
        const token = await world.issuer.token({ clientId: as.clientId ?? randomUUID(), scopes: as.scopes });
        headers.authorization = `Bearer ${token}`;
      }
      const reply = await app
        .getHttpAdapter()
        .getInstance()
        .inject({ method, url, headers, ...(body === undefined ? {} : { payload: body as object }) });
      const parsed: unknown = reply.body === '' ? undefined : JSON.parse(reply.body);
      // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- a reply read field by field
      return { status: reply.statusCode, body: parsed as Json };
    },
    close: async () => {
      await app.close();
      await world.close();
    },
  };
}

/**
 * The events a test publishes, and subscribers that tell them from the location events of the file's other tests
 * (which reach every dispatcher of the file): a subscriber answers requests about this file's events as `answer`
 * says (given the attempt number of the delivery) and foreign ones as `foreign` says (200 by default).
 */
export function ownEvents(dispatcher: () => Dispatcher, receivers: Receiver[]) {
  const ids = new Set<string>();
  const isOwn = (request: ReceivedRequest) => [...ids].some((id) => isAbout(request, id));
  return {
    isOwn,
    /** Marks a location or export request id as this file's before publishing an event about it. */
    own: (id: string) => void ids.add(id),
    async subscriber(
      answer: (attempt: number) => Answer = () => ({ status: 200 }),
      options: { foreign?: () => Answer; secret?: string } = {},
    ) {
      const { foreign = () => ({ status: 200 }), secret = aWebhookSecret() } = options;
      const receiver = await startReceiver((request, attempt) => (isOwn(request) ? answer(attempt) : foreign()));
      receivers.push(receiver);
      const clientId = randomUUID();
      await dispatcher().publishClient('CLIENT_REGISTERED', { clientId, webhookUrl: receiver.url, secret }, 1);
      await dispatcher().waitForSubscription(clientId, 1);
      return { clientId, receiver, secret };
    },
    /** Publishes a new location (LOCATION_CREATED) of this file; its event id and the location. */
    async locationEvent() {
      const location = aNewLocation();
      ids.add(location.id);
      const { id } = await publish(dispatcher().bus, 'LOCATION_CREATED', location, 1);
      return { eventId: id, location };
    },
  };
}
