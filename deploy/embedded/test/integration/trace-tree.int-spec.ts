import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { type ClientData, KAFKA_HEADERS, TOPICS, WEBHOOK_PATHS } from '@lx/contracts';
import { aLocationInput } from '@lx/domain/testing';
import { KafkaEventBus } from '@lx/messaging';
import { createServiceApp, registerTracing, SpanKind, stopTracing, WebhookSecretTransport } from '@lx/platform';
import { AppModule as ExportWorkerModule, loadExportWorkerConfig } from '@lx/service/export-worker';
import { AppModule as LocationCommandModule, loadLocationCommandConfig } from '@lx/service/location-command';
import { AppModule as LocationQueryModule, loadLocationQueryConfig } from '@lx/service/location-query';
import {
  AppModule as StatisticsProjectionModule,
  loadStatisticsProjectionConfig,
} from '@lx/service/statistics-projection';
import { createWebhookDispatcherApp, loadWebhookDispatcherConfig } from '@lx/service/webhook-dispatcher';
import { requireEnv, startTestTokenIssuer, testKafka, type TestTokenIssuer, uniqueSuffix, waitFor } from '@lx/testing';

/** One request an RSP's webhook receiver got. */
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const TRACE_ID = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

/**
 * One trace across the services, with the SDK's in-memory exporter: location-command, location-query,
 * statistics-projection, export-worker and webhook-dispatcher run in this process (so their spans reach one
 * exporter) on real PostgreSQL, Kafka and MinIO, each on a schema and consumer group of its own, listening on loopback
 * where another service calls them (export-worker reads location-command's fence and location-query's snapshot over
 * HTTP). The W3C context crosses HTTP (a caller's `traceparent`, the export's reads, the webhook requests), Kafka
 * headers, and the rows it waits in: the event log, the export request, the notification log.
 */
describe('tracing across the services', () => {
  const exporter = new InMemorySpanExporter();
  const suffix = uniqueSuffix();
  const apps: NestFastifyApplication[] = [];
  const servers: Server[] = [];
  const schemas: string[] = [];
  const received: Received[] = [];
  const clientId = randomUUID();
  let issuer: TestTokenIssuer;
  let bus: KafkaEventBus;
  let command: NestFastifyApplication;
  let exportWorker: NestFastifyApplication;

  async function listen(server: Server): Promise<string> {
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** A service in this process on its own schema; listening on loopback when `listening`, else reached by inject. */
  async function start(
    app: Promise<NestFastifyApplication>,
    listening = false,
  ): Promise<{ app: NestFastifyApplication; url: string }> {
    const started = await app;
    apps.push(started);
    if (!listening) {
      await started.init();
      return { app: started, url: '' };
    }
    await started.listen(0, '127.0.0.1');
    const address = started.getHttpServer().address() as AddressInfo;
    return { app: started, url: `http://127.0.0.1:${address.port}` };
  }

  /** `probe`'s first answer other than undefined, asked every 200 ms for up to a minute. */
  async function until<T>(description: string, probe: () => T | undefined): Promise<T> {
    let answer: T | undefined;
    await waitFor(
      description,
      () => {
        answer = probe();
        return Promise.resolve(answer !== undefined);
      },
      60_000,
    );
    return answer!;
  }

  const envOf = (schema: string, settings: Record<string, string> = {}): NodeJS.ProcessEnv => {
    schemas.push(schema);
    return { ...process.env, ...issuer.env, LOG_LEVEL: 'warn', DATABASE_SCHEMA: schema, ...settings };
  };

  beforeAll(async () => {
    registerTracing('trace-tree-test', new SimpleSpanProcessor(exporter));
    issuer = await startTestTokenIssuer();
    bus = new KafkaEventBus(testKafka(`it-trace-${suffix}`));

    const receiverUrl = await listen(
      createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          received.push({
            path: request.url ?? '',
            headers: request.headers,
            body: Buffer.concat(chunks).toString(),
          });
          response.writeHead(204).end();
        });
      }),
    );
    // The token endpoint export-worker signs in at: tokens of the test issuer for its service client.
    const tokenUrl = await listen(
      createServer((_request, response) => {
        void issuer
          .token({ clientId: 'export-worker', scopes: ['locations:read', 'locations:internal'] })
          .then((token) => {
            response.writeHead(200, { 'content-type': 'application/json' });
            response.end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 600 }));
          });
      }),
    );

    const commandConfig = loadLocationCommandConfig(
      envOf(`tr_lc_${suffix}`, { RELAY_THREAD: 'main', OUTBOX_POLL_INTERVAL_MS: '20' }),
    );
    const commandStarted = await start(
      createServiceApp('location-command', LocationCommandModule.register(commandConfig), commandConfig.http),
      true,
    );
    command = commandStarted.app;
    const queryConfig = loadLocationQueryConfig(envOf(`tr_lq_${suffix}`, { PROJECTION_GROUP_ID: `tr-lq-${suffix}` }));
    const query = await start(
      createServiceApp('location-query', LocationQueryModule.register(queryConfig), queryConfig.http),
      true,
    );
    const statisticsConfig = loadStatisticsProjectionConfig(
      envOf(`tr_sp_${suffix}`, { PROJECTION_GROUP_ID: `tr-sp-${suffix}` }),
    );
    const statistics = await start(
      createServiceApp(
        'statistics-projection',
        StatisticsProjectionModule.register(statisticsConfig),
        statisticsConfig.http,
      ),
      true,
    );
    const exportConfig = loadExportWorkerConfig(
      envOf(`tr_ew_${suffix}`, {
        AUTH_TOKEN_URL: `${tokenUrl}/oauth/token`,
        SERVICE_CLIENT_ID: 'export-worker',
        SERVICE_CLIENT_SECRET: 'unused',
        LOCATION_QUERY_URL: query.url,
        LOCATION_COMMAND_URL: commandStarted.url,
        STATISTICS_URL: statistics.url,
        EXPORT_POLL_INTERVAL_MS: '100',
      }),
    );
    exportWorker = (
      await start(createServiceApp('export-worker', ExportWorkerModule.register(exportConfig), exportConfig.http))
    ).app;

    const transportKey = randomBytes(32);
    const dispatcherConfig = loadWebhookDispatcherConfig(
      envOf(`tr_wh_${suffix}`, {
        WEBHOOK_CONSUMER_GROUP: `tr-wh-${suffix}`,
        WEBHOOK_SECRET_TRANSPORT_KEY: transportKey.toString('base64'),
        WEBHOOK_ALLOWED_ADDRESS_KINDS: 'loopback',
        WEBHOOK_POLL_INTERVAL: '100ms',
      }),
    );
    const dispatcher = await createWebhookDispatcherApp(dispatcherConfig);
    apps.push(dispatcher.app);
    await dispatcher.start();

    // An RSP whose endpoint receives every location event and its own exports' notifications.
    const data: ClientData = {
      clientId,
      name: 'RSP traced',
      kind: 'RSP',
      scopes: ['locations:read'],
      enabled: true,
      webhookUrl: receiverUrl,
      webhookSecretSealed: new WebhookSecretTransport(transportKey).seal(
        `whsec_${randomBytes(32).toString('base64')}`,
        { clientId, version: 1 },
      ),
    };
    const registered = {
      id: randomUUID(),
      type: 'CLIENT_REGISTERED',
      timestamp: new Date().toISOString(),
      source: 'it',
      data,
    };
    await bus.publish(TOPICS.clientEvents.name, [
      { key: clientId, value: JSON.stringify(registered), headers: { [KAFKA_HEADERS.aggregateVersion]: '1' } },
    ]);
    const db = new Client({ connectionString: requireEnv('DATABASE_URL'), options: `-c search_path=tr_wh_${suffix}` });
    await db.connect();
    try {
      await waitFor('the subscription', async () => {
        const { rows } = await db.query('SELECT 1 FROM subscriptions WHERE client_id = $1', [clientId]);
        return rows.length === 1;
      });
    } finally {
      await db.end();
    }
  }, 180_000);

  afterAll(async () => {
    for (const app of apps.reverse()) await app.close().catch(() => undefined);
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    await bus?.close();
    await stopTracing();
    await issuer?.close();
    const db = new Client({ connectionString: requireEnv('DATABASE_URL') });
    await db.connect();
    for (const schema of schemas) await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db.end();
  });

  const spansOf = (traceId: string): ReadableSpan[] =>
    exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
  const childrenOf = (spans: readonly ReadableSpan[], parent: ReadableSpan): ReadableSpan[] =>
    spans.filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId);
  const one = (spans: readonly ReadableSpan[], what: string, test: (span: ReadableSpan) => boolean): ReadableSpan => {
    const found = spans.filter(test);
    if (found.length !== 1) {
      const seen = spans.map((span) => `${span.instrumentationScope.name}: ${span.name}`).join('; ');
      throw new Error(`expected one ${what}, found ${found.length} among: ${seen}`);
    }
    return found[0]!;
  };
  /** The webhook request on `path` whose body holds every one of `texts`, once it arrived. */
  const webhookWith = (path: string, ...texts: string[]) =>
    until(`a webhook on ${path} with ${texts.join(', ')}`, () =>
      received.find((request) => request.path === path && texts.every((text) => request.body.includes(text))),
    );

  it('given an operator PATCH with a caller trace context, when it has spread, then one trace spans the write, its publication, both projections, the intake and the webhook', async () => {
    const created = await command.inject({
      method: 'POST',
      url: '/operator/locations',
      headers: { authorization: `Bearer ${await issuer.token({ scopes: ['locations:write'] })}` },
      payload: aLocationInput(),
    });
    expect(created.statusCode).toBe(201);
    const { id } = created.json<{ id: string }>();
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');

    const patched = await command.inject({
      method: 'PATCH',
      url: `/operator/locations/${id}`,
      headers: {
        authorization: `Bearer ${await issuer.token({ scopes: ['locations:write'] })}`,
        'content-type': 'application/merge-patch+json',
        'if-match': String(created.headers.etag),
        traceparent: `00-${traceId}-${callerSpanId}-01`,
      },
      payload: { notes: 'traced' },
    });
    expect(`${patched.statusCode} ${patched.body}`).toMatch(/^200 /);
    const webhook = await webhookWith(WEBHOOK_PATHS.locationEvents, id, 'LOCATION_UPDATED');

    const [, webhookTrace, webhookParent] = TRACE_ID.exec(String(webhook.headers.traceparent)) ?? [];
    expect(webhookTrace).toBe(traceId);
    // Every span of the trace has ended once both projections applied the event.
    const spans = await until('the projections’ spans', () => {
      const all = spansOf(traceId);
      const consumers = all.filter((span) => span.kind === SpanKind.CONSUMER);
      return consumers.length >= 4 && all.some((span) => span.kind === SpanKind.CLIENT) ? all : undefined;
    });

    const request = one(spans, 'PATCH span', (span) => span.kind === SpanKind.SERVER);
    expect(request.instrumentationScope.name).toBe('location-command');
    expect(request.name).toBe('PATCH /operator/locations/:id');
    expect(request.parentSpanContext?.spanId).toBe(callerSpanId);
    expect(request.attributes['http.response.status_code']).toBe(200);

    const publication = one(childrenOf(spans, request), 'publication', (span) => span.kind === SpanKind.PRODUCER);
    expect(publication.attributes['messaging.destination.name']).toMatch(/location\.events\.v1$/);

    // location-query's two projections (the read model and the change feed), statistics, the dispatcher's intake.
    const consumers = childrenOf(spans, publication);
    expect(consumers.every((span) => span.kind === SpanKind.CONSUMER)).toBe(true);
    expect(consumers.map((span) => span.attributes['lx.projection']).sort()).toEqual([
      'location-changes',
      'location-read-model',
      'statistics',
      'webhook-notifications',
    ]);
    const intake = one(consumers, 'intake', (span) => span.attributes['lx.projection'] === 'webhook-notifications');

    const delivery = one(childrenOf(spans, intake), 'delivery', (span) => span.kind === SpanKind.CLIENT);
    expect(delivery.instrumentationScope.name).toBe('webhook-dispatcher');
    expect(delivery.attributes['http.response.status_code']).toBe(204);
    expect(webhookParent).toBe(delivery.spanContext().spanId);
  });

  it('given an export request, when it completes, then one trace spans the request, the generation, its reads of the other services, the event and the notification', async () => {
    const requested = await exportWorker.inject({
      method: 'POST',
      url: '/locations/exports',
      headers: {
        authorization: `Bearer ${await issuer.token({ clientId, scopes: ['locations:read'] })}`,
        'content-type': 'application/json',
      },
      payload: { format: 'json' },
    });
    expect(requested.statusCode).toBe(202);
    const { requestId } = requested.json<{ requestId: string }>();
    await webhookWith(WEBHOOK_PATHS.exportEvents, requestId);

    const request = one(
      exporter.getFinishedSpans(),
      'POST /locations/exports span',
      (span) => span.kind === SpanKind.SERVER && span.name === 'POST /locations/exports',
    );
    const traceId = request.spanContext().traceId;
    const spans = await until('the delivery span', () => {
      const all = spansOf(traceId);
      return all.some((span) => span.kind === SpanKind.CLIENT) ? all : undefined;
    });

    const generation = one(childrenOf(spans, request), 'generation', (span) => span.name === 'export json');
    expect(generation.attributes['lx.export.outcome']).toBe('completed');
    // Its reads: location-command's watermark fence and location-query's snapshot, each a server span under it.
    const reads = childrenOf(spans, generation).filter((span) => span.kind === SpanKind.SERVER);
    expect(reads.map((span) => `${span.instrumentationScope.name} ${span.name}`).sort()).toEqual([
      'location-command POST /internal/watermark',
      'location-query GET /internal/locations/snapshot',
    ]);
    const publication = one(childrenOf(spans, generation), 'publication', (span) => span.kind === SpanKind.PRODUCER);
    const intake = one(childrenOf(spans, publication), 'intake', (span) => span.kind === SpanKind.CONSUMER);
    const delivery = one(childrenOf(spans, intake), 'delivery', (span) => span.kind === SpanKind.CLIENT);
    expect(delivery.name).toBe(`POST ${WEBHOOK_PATHS.exportEvents}`);
  });
});
