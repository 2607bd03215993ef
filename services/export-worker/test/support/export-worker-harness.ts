import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Client } from 'pg';
import {
  type AddressGroupListItem,
  type Location,
  locationCsvRecord,
  type LocationGroupListItem,
  LOCATION_SNAPSHOT,
  SERVICEABILITY_STATUSES,
  TOPICS,
  WATERMARK_FENCE,
} from '@lx/contracts';
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
import { loadExportWorkerConfig } from '../../src/config/export-worker.config';

export type { Json, Reply } from '@lx/testing';

/**
 * What export-worker's configuration requires besides the database and Kafka, for tests that start or migrate it
 * without its peers: they are only called for export requests, which those tests do not make.
 */
export const PEERLESS_EXPORT_WORKER_ENV = {
  AUTH_TOKEN_URL: 'http://127.0.0.1:9/oauth/token',
  SERVICE_CLIENT_ID: 'export-worker',
  SERVICE_CLIENT_SECRET: 'unused',
  LOCATION_QUERY_URL: 'http://127.0.0.1:9',
  LOCATION_COMMAND_URL: 'http://127.0.0.1:9',
  STATISTICS_URL: 'http://127.0.0.1:9',
};

/**
 * Stand-ins for the peers the export worker reads from, over real HTTP on loopback: the token endpoint (tokens of the
 * test issuer), location-command's watermark fence, location-query's snapshot stream (with its groups) and group reads, and the
 * statistics count. They serve the same internal contracts (libs/contracts) from an in-memory list of locations, so
 * a test decides exactly what an export must contain; the system tests (e2e/) run the real services.
 */
export interface Peers {
  url: string;
  locations: Location[];
  /** The read model's version of each location, for snapshots with versions=true; 1 when absent. */
  versions: Map<string, number>;
  groups: Set<string>;
  /** The groups a json snapshot streams after its locations, each with the time of its last change. */
  locationGroups: SnapshotGroup[];
  addressGroups: SnapshotGroup[];
  /**
   * Snapshot requests answered 500 before the next succeeds, by the `modifiedSince` of the selection: a test fails
   * only its own export's snapshots (one with a `modifiedSince` no other test uses), never those of an export another
   * test left in flight.
   */
  failingSnapshots: Map<string, number>;
  /** Milliseconds between two snapshot lines (a slow stream, to stop a worker mid-export). */
  lineDelayMs: number;
  /** What the statistics count answers instead of the real count. */
  countOverride?: number;
  /** Authorization headers the internal endpoints received. */
  authorizations: string[];
  /** The W3C `traceparent` headers the internal endpoints received (requests without one are not listed). */
  traceParents: string[];
  /** Every token the token endpoint issued, oldest first. */
  issuedTokens: string[];
  /** Tokens the internal endpoints answer 403 insufficient_scope, as tokens issued before an upgrade gave the scope. */
  tokensWithoutInternalScope: Set<string>;
  close(): Promise<void>;
}

/**
 * A group as location-query's read model holds it: the list item (a tombstone with deletedAt), its change time and
 * its version (1 when absent).
 */
export interface SnapshotGroup {
  item: LocationGroupListItem | AddressGroupListItem;
  changedAt: string;
  version?: number;
}

export async function startPeers(issuer: TestTokenIssuer): Promise<Peers> {
  const peers: Omit<Peers, 'url' | 'close'> = {
    locations: [],
    versions: new Map(),
    groups: new Set(),
    locationGroups: [],
    addressGroups: [],
    failingSnapshots: new Map(),
    lineDelayMs: 0,
    authorizations: [],
    traceParents: [],
    issuedTokens: [],
    tokensWithoutInternalScope: new Set(),
  };
  const selected = (query: URLSearchParams) =>
    peers.locations
      .filter((location) => {
        const since = query.get('modifiedSince');
        const group = query.get('locationGroupId');
        return (since === null || location.updatedAt > since) && (group === null || location.locationGroupId === group);
      })
      .sort((a, b) => a.id.localeCompare(b.id));
  /** As location-query selects groups: the live ones, or with modifiedSince those changed after it, by id. */
  const selectedGroups = (groups: readonly SnapshotGroup[], query: URLSearchParams) => {
    const since = query.get('modifiedSince');
    return groups
      .filter((group) => (since === null ? group.item.deletedAt === undefined : group.changedAt > since))
      .map((group) =>
        query.get(LOCATION_SNAPSHOT.versionsParameter) === 'true'
          ? { ...group.item, version: group.version ?? 1 }
          : group.item,
      )
      .sort((a, b) => a.id.localeCompare(b.id));
  };
  const json = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://peer');
    if (request.method === 'POST' && url.pathname === '/oauth/token') {
      const token = await issuer.token({ clientId: 'export-worker', scopes: ['locations:read', 'locations:internal'] });
      peers.issuedTokens.push(token);
      return json(response, 200, { access_token: token, token_type: 'Bearer', expires_in: 600 });
    }
    const authorization = request.headers.authorization ?? '';
    peers.authorizations.push(authorization);
    if (typeof request.headers.traceparent === 'string') peers.traceParents.push(request.headers.traceparent);
    if (!authorization.startsWith('Bearer ')) return json(response, 401, { error: { code: 'UNAUTHORIZED' } });
    const internal = url.pathname === WATERMARK_FENCE.path || url.pathname === LOCATION_SNAPSHOT.path;
    if (internal && peers.tokensWithoutInternalScope.has(authorization.slice('Bearer '.length))) {
      response.setHeader('www-authenticate', 'Bearer error="insufficient_scope", scope="locations:internal"');
      return json(response, 403, { error: { code: 'FORBIDDEN', details: { requiredScope: 'locations:internal' } } });
    }
    if (request.method === 'POST' && url.pathname === WATERMARK_FENCE.path) {
      return json(response, 200, { watermark: new Date().toISOString() });
    }
    if (request.method === 'GET' && url.pathname === LOCATION_SNAPSHOT.path) {
      if (url.searchParams.get('catchUp') !== 'true') return json(response, 400, { error: { code: 'NO_CATCH_UP' } });
      const failures = peers.failingSnapshots.get(url.searchParams.get('modifiedSince') ?? '') ?? 0;
      if (failures > 0) {
        peers.failingSnapshots.set(url.searchParams.get('modifiedSince') ?? '', failures - 1);
        return json(response, 500, { error: { code: 'INTERNAL_ERROR', message: 'snapshot failed' } });
      }
      const rows = selected(url.searchParams);
      const format = url.searchParams.get(LOCATION_SNAPSHOT.formatParameter) === 'csv' ? 'csv' : 'json';
      const withGroups = url.searchParams.get(LOCATION_SNAPSHOT.groupsParameter) === 'true';
      const withVersions = url.searchParams.get(LOCATION_SNAPSHOT.versionsParameter) === 'true';
      // As location-query composes it: the stored body with the version as its last key.
      const jsonLine = (row: Location) =>
        withVersions
          ? `${JSON.stringify(row).slice(0, -1)},"version":${peers.versions.get(row.id) ?? 1}}\n`
          : `${JSON.stringify(row)}\n`;
      const locationGroups = withGroups ? selectedGroups(peers.locationGroups, url.searchParams) : [];
      const addressGroups = withGroups ? selectedGroups(peers.addressGroups, url.searchParams) : [];
      response.writeHead(200, {
        'content-type': LOCATION_SNAPSHOT.contentTypes[format],
        [LOCATION_SNAPSHOT.totalCountHeader]: String(rows.length),
        ...(withGroups
          ? {
              [LOCATION_SNAPSHOT.locationGroupCountHeader]: String(locationGroups.length),
              [LOCATION_SNAPSHOT.addressGroupCountHeader]: String(addressGroups.length),
            }
          : {}),
      });
      for (const row of rows) {
        if (peers.lineDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, peers.lineDelayMs));
        if (response.destroyed) return;
        response.write(format === 'csv' ? locationCsvRecord(row) : jsonLine(row));
      }
      for (const group of [...locationGroups, ...addressGroups]) response.write(`${JSON.stringify(group)}\n`);
      return response.end();
    }
    if (request.method === 'GET' && url.pathname === '/locations/statistics') {
      const zero = Object.fromEntries(SERVICEABILITY_STATUSES.map((status) => [status, 0]));
      return json(response, 200, {
        totalCount: peers.countOverride ?? selected(url.searchParams).length,
        countByStatus: zero,
        countByType: { addressOnly: 0, coordinatesOnly: 0, addressAndCoordinates: 0, grouped: 0, standalone: 0 },
        queryTimestamp: new Date().toISOString(),
      });
    }
    const group = /^\/location-groups\/([0-9a-f-]{36})$/.exec(url.pathname);
    if (request.method === 'GET' && group) {
      return peers.groups.has(group[1]!)
        ? json(response, 200, { id: group[1], name: 'group', type: 'OTHER' })
        : json(response, 404, { error: { code: 'RESOURCE_NOT_FOUND', message: 'no such group' } });
    }
    return json(response, 404, { error: { code: 'RESOURCE_NOT_FOUND', message: url.pathname } });
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return Object.assign(peers, {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** The export worker in this process, on a schema of its own, with stand-in peers and the test token issuer. */
export interface ExportWorkerHarness {
  app: NestFastifyApplication;
  schema: string;
  issuer: TestTokenIssuer;
  peers: Peers;
  db: Client;
  events: EventLog;
  /** A request as the client `clientId` (default: a token with locations:read; `null` sends none). */
  request(
    method: string,
    url: string,
    options?: { body?: unknown; headers?: Record<string, string>; clientId?: string; token?: string | null },
  ): Promise<Reply>;
  /** Polls the export until it is no longer PENDING. */
  settled(requestId: string, clientId?: string, timeoutMs?: number): Promise<Json>;
  close(): Promise<void>;
}

export const DEFAULT_CLIENT = 'rsp-one';

/** The environment of an export worker on `schema` that trusts `issuer` and reads from `peers`. */
export function exportWorkerEnv(
  schema: string,
  issuer: TestTokenIssuer,
  peers: Peers,
  settings: Record<string, string> = {},
): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...issuer.env,
    DATABASE_SCHEMA: schema,
    LOG_LEVEL: 'warn',
    AUTH_TOKEN_URL: `${peers.url}/oauth/token`,
    SERVICE_CLIENT_ID: 'export-worker',
    SERVICE_CLIENT_SECRET: 'export-worker-secret',
    LOCATION_QUERY_URL: peers.url,
    LOCATION_COMMAND_URL: peers.url,
    STATISTICS_URL: peers.url,
    EXPORT_POLL_INTERVAL_MS: '100',
    EXPORT_RETRY_DELAY_SECONDS: '0',
    ...settings,
  };
}

export async function startExportWorker(settings: Record<string, string> = {}): Promise<ExportWorkerHarness> {
  const schema = `ew_it_${uniqueSuffix()}`;
  const issuer = await startTestTokenIssuer();
  const peers = await startPeers(issuer);
  const env = exportWorkerEnv(schema, issuer, peers, settings);
  const config = loadExportWorkerConfig(env);
  const app = await createServiceApp('export-worker', AppModule.register(config), config.http);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  const events = await startEventLog(kafkaOf(config.eventBus), [TOPICS.exportEvents.name]);
  const db = new Client({ connectionString: requireEnv('DATABASE_URL'), options: `-c search_path=${schema}` });
  await db.connect();

  const request: ExportWorkerHarness['request'] = async (method, url, options = {}) => {
    const token =
      options.token === undefined
        ? await issuer.token({ clientId: options.clientId ?? DEFAULT_CLIENT, scopes: ['locations:read'] })
        : options.token;
    const headers: Record<string, string> = { ...options.headers };
    if (token !== null) headers['authorization'] = `Bearer ${token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await app
      .getHttpAdapter()
      .getInstance()
      .inject({
        method: method as 'GET',
        url,
        headers,
        payload: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
    return {
      status: response.statusCode,
      headers: response.headers,
      body: response.body === '' ? undefined : parseJson(response.body),
    };
  };

  return {
    app,
    schema,
    issuer,
    peers,
    db,
    events,
    request,
    async settled(requestId, clientId = DEFAULT_CLIENT, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const reply = await request('GET', `/locations/exports/${requestId}`, { clientId });
        // eslint-disable-next-line @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return -- a reply read field by field
        if (reply.body?.status !== 'PENDING') return reply.body;
        if (Date.now() > deadline) throw new Error(`export ${requestId} still PENDING after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async close() {
      await app.close().catch(() => undefined);
      await events.close().catch(() => undefined);
      await peers.close();
      await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
      await db.end();
      await issuer.close();
    },
  };
}

function parseJson(text: string): unknown {
  return JSON.parse(text) as unknown;
}
