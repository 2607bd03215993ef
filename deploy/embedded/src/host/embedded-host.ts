import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import { Logger } from '@nestjs/common';
import type { LevelWithSilent } from 'pino';
import { API_SECURITY_HEADERS, EDGE_ERRORS, errorBody, REVOCATIONS_PATH } from '@lx/contracts';
import {
  answerEdgeError,
  createLogger,
  createServiceApp,
  freePort,
  type LocalStorageConfig,
  PinoNestLogger,
} from '@lx/platform';
import { AppModule as AuthModule, loadAuthConfig } from '@lx/service/auth';
import { AppModule as ExportWorkerModule, loadExportWorkerConfig } from '@lx/service/export-worker';
import { AppModule as LocationCommandModule, loadLocationCommandConfig } from '@lx/service/location-command';
import { AppModule as LocationQueryModule, loadLocationQueryConfig } from '@lx/service/location-query';
import {
  AppModule as StatisticsProjectionModule,
  loadStatisticsProjectionConfig,
} from '@lx/service/statistics-projection';
import { createWebhookDispatcherApp, loadWebhookDispatcherConfig } from '@lx/service/webhook-dispatcher';
import { localFileDownloads, localFileStoreOf } from '@lx/storage';
import { DataFolder, type EmbeddedSecrets } from './data-folder';
import { startEmbeddedPostgres, type RunningPostgres } from './embedded-postgres';
import { edgeRefusal, loadIngressRoutes, normalisedPath, serviceFor } from './ingress-routes';

export interface EmbeddedOptions {
  repoRoot: string;
  /** Everything the profile keeps (default <repo>/.lx-data). */
  dataDir: string;
  /** The public port (0: any free one). */
  port: number;
  /** Start afresh: delete the data folder's contents first. */
  reset: boolean;
  /** Log level of the services' JSON lines (standard output). */
  logLevel: string;
  /** The host's own progress lines. */
  say: (line: string) => void;
}

export interface RunningEmbedded {
  baseUrl: string;
  secrets: EmbeddedSecrets;
  /** True at the first start of this data folder (demo data is loaded then). */
  firstStart: boolean;
  dataFolder: DataFolder;
  /** Adds a handler for a path prefix of the public port that no service route claims (the demo receiver). */
  mount(prefix: string, handler: (request: IncomingMessage, response: ServerResponse) => void): void;
  stop(): Promise<void>;
}

/** The public port is taken: said as such, with the way out, instead of a stack trace. */
export class PortTakenError extends Error {
  constructor(readonly port: number) {
    super(
      `port ${port} is taken by another program; choose another one: npm start -- --port <port> (0: any free port)`,
    );
  }
}

const DATABASE = 'lx';

/**
 * nginx's room for a request line and its headers (`large_client_header_buffers 4 8k`): what fits reaches the
 * handler, which refuses as nginx does (edgeRefusal); a request larger still, or one Node cannot parse at all, is
 * answered 400 by onClientError (nginx would say 414 for a request line over 32 KB: not told apart here).
 */
const MAX_HEADER_BYTES = 4 * 8192;
/** The longest time to receive a request: location-command's default deadline (HTTP_REQUEST_TIMEOUT_MS), four hours. */
const INGRESS_REQUEST_TIMEOUT_MS = 14_400_000;

/**
 * A request Node's parser refused: nginx's 400 in the API's error shape, then the connection closes. Nothing is written
 * where a reply could not be read whole: a client that went away, a request that timed out (nginx closes those without
 * a reply), or a connection still sending the reply of an earlier request (a bad pipelined request; Node's own handler
 * holds back there too).
 */
function onClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  const replying = (socket as Socket & { _httpMessage?: unknown })._httpMessage;
  if (error.code === 'ECONNRESET' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || !socket.writable || replying) {
    return void socket.destroy();
  }
  const body = `${JSON.stringify(errorBody(EDGE_ERRORS[400].code, EDGE_ERRORS[400].message))}\n`;
  const headers = Object.entries({
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'x-request-id': randomBytes(16).toString('hex'),
    connection: 'close',
    ...API_SECURITY_HEADERS,
  }).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(`HTTP/1.1 400 Bad Request\r\n${headers.join('')}\r\n${body}`);
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

async function ensureDatabase(postgres: RunningPostgres): Promise<void> {
  const client = new Client({ connectionString: postgres.url() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
}

/** What to undo when stopping, in reverse order of starting. */
type Cleanups = (() => Promise<void>)[];

/** A service's app, by service name (the ingress routes to it once it is set). */
type Apps = Map<string, NestFastifyApplication>;

/** Handlers of public path prefixes that no service route claims (the downloads, the demo receiver). */
type Mounts = Map<string, (request: IncomingMessage, response: ServerResponse) => void>;

/**
 * The embedded profile: every service's application in this process, behind one public port that routes the
 * ingress's route table (helm/location-exchange/files/routes.json) exactly as nginx does in the stack. Only the
 * infrastructure differs from the stack, and each service chooses its adapters by its own configuration, as in any
 * deployment: PostgreSQL from npm instead of an installed one, EVENT_BUS=postgres (the event log in tables of that
 * database) instead of Kafka, OBJECT_STORE=local (files in the data folder, downloads served on /downloads/ of the same
 * port) instead of MinIO. Each service keeps its own schema and migrations, its own configuration (validated by its
 * own loader) and its own loopback port for the internal calls between services, as in the stack. Three steps: the
 * ingress, the infrastructure, the services.
 */
export async function startEmbedded(options: EmbeddedOptions): Promise<RunningEmbedded> {
  const folder = new DataFolder(options.dataDir);
  folder.lock();
  const cleanups: Cleanups = [() => Promise.resolve(folder.unlock())];
  const stop = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch((error: unknown) => options.say(`while stopping: ${String(error)}`));
    }
  };
  try {
    if (options.reset) folder.reset();
    const firstStart = !folder.initialised;
    const secrets = folder.secrets();
    mkdirSync(folder.logs, { recursive: true });

    const apps: Apps = new Map();
    const mounts: Mounts = new Map();
    const baseUrl = await startIngress(options, apps, mounts, cleanups);
    const infrastructure = await startInfrastructure(options, folder, secrets, firstStart, baseUrl, mounts, cleanups);
    await startServices(options, secrets, baseUrl, infrastructure, apps, cleanups);

    // NestJS's Logger is process-wide: it writes through the logger of the application created last. The class-level
    // lines of every service go out as the embedded host's, rather than all under the last service's name.
    Logger.overrideLogger(new PinoNestLogger(createLogger('embedded', options.logLevel as LevelWithSilent)));

    // Where everything answers, in the format of the stack's .infra/env, so the system tests run against this process
    // as against the stack (LX_STATE_DIR=<data folder>).
    const endpoints = [
      `BASE_URL=${baseUrl}`,
      `ADMIN_CLIENT_ID=${secrets.admin.clientId}`,
      `ADMIN_CLIENT_SECRET=${secrets.admin.clientSecret}`,
      ...[...apps.keys()].map(
        (service) => `${service.toUpperCase().replace(/-/g, '_')}_URL=${internalUrl(apps, service)}`,
      ),
    ];
    writeFileSync(join(folder.root, 'env'), `${endpoints.join('\n')}\n`, { mode: 0o600 });
    cleanups.push(() => Promise.resolve(rmSync(join(folder.root, 'env'), { force: true })));

    // Runs first when stopping: requests that arrive while the services close are answered 503.
    cleanups.push(() => Promise.resolve(apps.clear()));

    return {
      baseUrl,
      secrets,
      firstStart,
      dataFolder: folder,
      mount: (prefix, handler) => void mounts.set(prefix, handler),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The loopback URL of a started service's own port, for the internal calls between services. */
function internalUrl(apps: Apps, service: string): string {
  const app = apps.get(service);
  if (app === undefined) throw new Error(`${service} is not started`);
  return `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
}

/**
 * The public port, first: a port that is taken stops the start before anything else, and from here on the port
 * answers, 503 for a service that is not up yet (not in `apps`), as nginx answers for one not running. Returns its URL.
 */
async function startIngress(options: EmbeddedOptions, apps: Apps, mounts: Mounts, cleanups: Cleanups): Promise<string> {
  const routes = loadIngressRoutes(options.repoRoot);
  // The services' apps are mounted on this one server, so its deadline is theirs: location-command's (an import's
  // body is read as the import runs), with Node's minute for the headers.
  const ingress = createServer(
    { maxHeaderSize: MAX_HEADER_BYTES, requestTimeout: INGRESS_REQUEST_TIMEOUT_MS, headersTimeout: 60_000 },
    (request, response) => {
      const refused = edgeRefusal(request.method ?? 'GET', request.url ?? '/', request.rawHeaders);
      // nginx closes the connection after these, as after any request it could not read.
      if (refused) {
        return answerEdgeError(request, response, refused, { connection: 'close' });
      }
      // The path as nginx matches it (edgeRefusal has refused those it cannot read); the app gets the URL as sent.
      const path = normalisedPath((request.url ?? '/').split('?')[0]!)!;
      if (request.method === 'TRACE') {
        return answerEdgeError(request, response, 405);
      }
      for (const [prefix, handler] of mounts) if (path.startsWith(prefix)) return handler(request, response);
      const service = serviceFor(routes, path);
      if (service === undefined) return answerEdgeError(request, response, 404);
      const app = apps.get(service);
      if (app === undefined) {
        return answerEdgeError(request, response, 503);
      }
      app.getHttpAdapter().getInstance().routing(request, response);
    },
  );
  ingress.on('clientError', onClientError);
  const publicPort = await listen(ingress, options.port, '127.0.0.1').catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EADDRINUSE') throw error;
    throw new PortTakenError(options.port);
  });
  cleanups.push(
    () =>
      new Promise((resolve) => {
        ingress.close(() => resolve());
        // The services have closed by now (cleanups run in reverse): nothing is answered any more.
        ingress.closeAllConnections();
      }),
  );
  return `http://127.0.0.1:${publicPort}`;
}

/** What the services use instead of Kafka, MinIO and an installed PostgreSQL. */
interface EmbeddedInfrastructure {
  postgres: RunningPostgres;
  /** The local file store's settings (OBJECT_STORE=local), which the export worker writes with and /downloads/ serves. */
  files: LocalStorageConfig;
}

/** PostgreSQL from npm in the data folder, and the download route of the local file store (files in the folder). */
async function startInfrastructure(
  options: EmbeddedOptions,
  folder: DataFolder,
  secrets: EmbeddedSecrets,
  firstStart: boolean,
  baseUrl: string,
  mounts: Mounts,
  cleanups: Cleanups,
): Promise<EmbeddedInfrastructure> {
  const postgresLog = createWriteStream(join(folder.logs, 'postgres.log'), { flags: 'a' });
  cleanups.push(() => new Promise((resolve) => postgresLog.end(resolve)));
  options.say(firstStart ? 'starting PostgreSQL (first start: creating the cluster)' : 'starting PostgreSQL');
  const postgres = await startEmbeddedPostgres({
    dataDir: folder.postgres,
    port: await freePort(),
    password: secrets.postgresPassword,
    onLog: (line) => postgresLog.write(`${line}\n`),
  });
  cleanups.push(() => postgres.stop());
  await ensureDatabase(postgres);

  const files = {
    directory: folder.exports,
    publicBaseUrl: `${baseUrl}/downloads`,
    signingKey: secrets.downloadSigningKey,
  };
  // The export worker's store writes the files; this one only serves them, as MinIO serves what the stack writes.
  const objectStore = localFileStoreOf(files);
  const downloadsLogger = new Logger('Downloads');
  mounts.set(
    '/downloads/',
    localFileDownloads(objectStore, {
      onError: (error, errorId) => downloadsLogger.error({ errorId, err: String(error) }, 'Download failed'),
    }),
  );
  return { postgres, files };
}

/**
 * The six services, in the order they depend on each other (auth first: the others poll its revocation list; the
 * export worker last but one: it calls the three before it), each set in `apps` once it listens.
 */
async function startServices(
  options: EmbeddedOptions,
  secrets: EmbeddedSecrets,
  baseUrl: string,
  infrastructure: EmbeddedInfrastructure,
  apps: Apps,
  cleanups: Cleanups,
): Promise<void> {
  // Settings every service reads: the event log lives in the services' database.
  const common = {
    HTTP_HOST: '127.0.0.1',
    LOG_LEVEL: options.logLevel,
    DATABASE_URL: infrastructure.postgres.url(DATABASE),
    DATABASE_POOL_SIZE: '5',
    EVENT_BUS: 'postgres',
    AUTH_ISSUER: baseUrl,
    AUTH_JWKS_URL: `${baseUrl}/.well-known/jwks.json`,
    // Every caller reaches the ingress over loopback, which no X-Forwarded-For may then speak for.
    HTTP_TRUSTED_PROXIES: '',
  };
  const started = async (
    service: string,
    http: { port: number; host: string },
    create: () => Promise<NestFastifyApplication>,
  ) => {
    const ready = await create();
    cleanups.push(async () => {
      options.say(`stopping ${service}`);
      await ready.close();
    });
    await ready.listen(http.port, http.host);
    apps.set(service, ready);
    options.say(`${service} started`);
  };
  // Each service also listens on a loopback port of its own, for the internal calls between services. The services
  // after auth poll its revocation list there (the ingress never routes /internal/).
  const env = async (extra: Record<string, string>) => ({
    ...common,
    ...(apps.has('auth') ? { AUTH_REVOCATIONS_URL: `${internalUrl(apps, 'auth')}${REVOCATIONS_PATH}` } : {}),
    HTTP_PORT: String(await freePort()),
    ...extra,
  });

  const auth = loadAuthConfig(
    await env({
      AUTH_ENCRYPTION_KEY: secrets.encryptionKey,
      WEBHOOK_SECRET_TRANSPORT_KEY: secrets.webhookSecretTransportKey,
      ADMIN_BOOTSTRAP_CLIENT_ID: secrets.admin.clientId,
      ADMIN_BOOTSTRAP_CLIENT_SECRET: secrets.admin.clientSecret,
      SERVICE_BOOTSTRAP_CLIENT_ID: secrets.exportWorker.clientId,
      SERVICE_BOOTSTRAP_CLIENT_SECRET: secrets.exportWorker.clientSecret,
    }),
  );
  await started('auth', auth.http, () => createServiceApp('auth', AuthModule.register(auth), auth.http));
  const command = loadLocationCommandConfig(await env({}));
  await started('location-command', command.http, () =>
    createServiceApp('location-command', LocationCommandModule.register(command), command.http),
  );
  const query = loadLocationQueryConfig(await env({}));
  await started('location-query', query.http, () =>
    createServiceApp('location-query', LocationQueryModule.register(query), query.http),
  );
  const statistics = loadStatisticsProjectionConfig(await env({}));
  await started('statistics-projection', statistics.http, () =>
    createServiceApp('statistics-projection', StatisticsProjectionModule.register(statistics), statistics.http),
  );
  const exportWorker = loadExportWorkerConfig(
    await env({
      OBJECT_STORE: 'local',
      LOCAL_STORE_DIRECTORY: infrastructure.files.directory,
      LOCAL_STORE_PUBLIC_URL: infrastructure.files.publicBaseUrl,
      LOCAL_STORE_SIGNING_KEY: infrastructure.files.signingKey,
      SERVICE_CLIENT_ID: secrets.exportWorker.clientId,
      SERVICE_CLIENT_SECRET: secrets.exportWorker.clientSecret,
      AUTH_TOKEN_URL: `${internalUrl(apps, 'auth')}/oauth/token`,
      LOCATION_QUERY_URL: internalUrl(apps, 'location-query'),
      LOCATION_COMMAND_URL: internalUrl(apps, 'location-command'),
      STATISTICS_URL: internalUrl(apps, 'statistics-projection'),
    }),
  );
  await started('export-worker', exportWorker.http, () =>
    createServiceApp('export-worker', ExportWorkerModule.register(exportWorker), exportWorker.http),
  );
  const dispatcher = loadWebhookDispatcherConfig(
    await env({
      WEBHOOK_SECRET_TRANSPORT_KEY: secrets.webhookSecretTransportKey,
      // The demo receiver listens on this machine.
      WEBHOOK_ALLOWED_ADDRESS_KINDS: 'loopback',
    }),
  );
  await started('webhook-dispatcher', dispatcher.http, async () => {
    const { app, start } = await createWebhookDispatcherApp(dispatcher);
    await start();
    return app;
  });
}
