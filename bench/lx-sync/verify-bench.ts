/**
 * `lx-sync verify` against a mirror of BENCH_ROWS locations (default 1,000,000) of which BENCH_DRIFTED (default 10)
 * have drifted, beside the full comparison an RSP makes without digests, measured in the same run.
 *
 *   npm run bench:verify     (BENCH_ROWS, BENCH_DRIFTED, BENCH_KEEP=1 keeps the schemas and the topics)
 *
 * Setup (not timed): location-query runs from dist/ as in production, on a fresh schema and topics of the run's own
 * (positioned at their end: it reads no history); BENCH_ROWS realistic locations are written into its read model with
 * COPY (as the other read-side benchmarks do, `copyReadModel`: the digest's stored nodes computed once from the rows).
 * The mirror is lx-sync's PostgreSQL store (its tables in a schema of the same database, found by search_path) filled
 * from the read model in SQL with the same (id, version, body) and the digest columns lx-sync writes; then BENCH_DRIFTED
 * rows are made to drift: a third deleted, a third given another version, a third added. A stand-in for the public
 * ingress, served by this process, answers /oauth/token with tokens of the test issuer (which the service trusts) and
 * passes every other request to location-query.
 *
 * Measured:
 * - verify: `VerifyMirror` (what `lx-sync verify` runs), confirmation off; its seconds and requests, once on the equal
 *   mirror and once after the drift; the drifted ids it names must be exactly the ones made, or the run fails;
 * - the full comparison (the baseline): every location streamed with its version from location-query's snapshot (the
 *   stream an export is made of, read directly: without the export's upload to and download from the object store,
 *   so the baseline is faster than a real export and the ratio errs against verify), each line parsed, and compared
 *   by (id, version) with the mirror's rows read into a map. It must find the same ids.
 * Target (issue 27): verify under 5 % of the full comparison's time and under 1,000 requests.
 */
import { randomUUID } from 'node:crypto';
import { openSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server as HttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { Client } from 'pg';
import { TOPICS } from '@lx/contracts';
import { KafkaEventBus } from '@lx/messaging';
import { LxApiClient } from '../../libs/lx-sync/src/api/lx-api.client';
import { openMirrorStore } from '../../libs/lx-sync/src/store/open-mirror-store';
import { type DriftedId, VerifyMirror } from '../../libs/lx-sync/src/use-cases/verify-mirror.use-case';
import { loadInfraEnv, REPO_ROOT, requireEnv } from '../../libs/testing/src/infra-env';
import { createPrivateTopics } from '../../libs/testing/src/kafka-topics';
import { startTestTokenIssuer, type TestTokenIssuer } from '../../libs/testing/src/token-issuer';
import {
  copyReadModel,
  loadAverage,
  log,
  positionAtLogEnd,
  readModelRows,
  run,
  type Server,
  startServer,
  table,
} from '../location-query/bench-support';

const ROWS = Number(process.env['BENCH_ROWS'] ?? 1_000_000);
const DRIFTED = Number(process.env['BENCH_DRIFTED'] ?? 10);
const CLIENT_ID = 'bench-lx-sync';
const dist = (file: string) => join(REPO_ROOT, `dist/services/location-query/services/location-query/src/${file}`);
const fixed = (value: number, digits = 1) => value.toFixed(digits);
const thousands = (value: number) => Math.round(value).toLocaleString('en-US');
const key = (item: { id: string }) => item.id;

/** The public base URL as lx-sync sees it: /oauth/token here, everything else passed to location-query. */
async function startIngress(
  issuer: TestTokenIssuer,
  upstream: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: HttpServer = createServer((request, response) => {
    if (request.method === 'POST' && request.url === '/oauth/token') {
      request.resume();
      issuer.token({ clientId: CLIENT_ID, scopes: ['locations:read'] }).then(
        (token) => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 3600 }));
        },
        () => response.writeHead(500).end(),
      );
      return;
    }
    request.resume();
    fetch(`${upstream}${request.url}`, { headers: { authorization: request.headers.authorization ?? '' } }).then(
      async (reply) => {
        response.writeHead(reply.status, { 'content-type': reply.headers.get('content-type') ?? 'application/json' });
        response.end(Buffer.from(await reply.arrayBuffer()));
      },
      () => response.writeHead(502).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The baseline: the whole snapshot with versions, each line parsed and compared with the mirror's (id, version). */
async function fullComparison(queryUrl: string, token: string, db: Client, mirrorSchema: string): Promise<DriftedId[]> {
  const mirror = new Map<string, number>();
  for (const row of (
    await db.query<{ id: string; version: number }>(`SELECT id::text, version FROM ${mirrorSchema}.locations`)
  ).rows) {
    mirror.set(row.id, row.version);
  }
  const response = await fetch(`${queryUrl}/internal/locations/snapshot?format=json&versions=true`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (response.status !== 200 || response.body === null) throw new Error(`snapshot answered ${response.status}`);
  const drifted: DriftedId[] = [];
  const lines = createInterface({ input: Readable.fromWeb(response.body as WebReadableStream<Uint8Array>) });
  for await (const line of lines) {
    const { id, version } = JSON.parse(line) as { id: string; version: number };
    const held = mirror.get(id);
    if (held !== version)
      drifted.push({ resource: 'locations', id, server: version, ...(held === undefined ? {} : { mirror: held }) });
    mirror.delete(id);
  }
  for (const [id, version] of mirror) drifted.push({ resource: 'locations', id, mirror: version });
  return drifted;
}

async function main(): Promise<void> {
  if (!Number.isInteger(ROWS) || ROWS < 100) throw new Error('BENCH_ROWS must be an integer of at least 100');
  if (!Number.isInteger(DRIFTED) || DRIFTED < 3) throw new Error('BENCH_DRIFTED must be an integer of at least 3');
  loadInfraEnv();
  const databaseUrl = requireEnv('DATABASE_URL');
  const brokers = requireEnv('KAFKA_BROKERS').split(',');
  const suffix = Date.now().toString(36);
  const schema = `bench_vf_lq_${suffix}`;
  const mirrorSchema = `bench_vf_mirror_${suffix}`;
  const group = `bench-vf-lq-${suffix}`;
  const dir = await mkdtemp(join(tmpdir(), 'lx-verify-bench-'));
  const topics = await createPrivateTopics(brokers, 'lxbench');
  const issuer = await startTestTokenIssuer();
  const bus = new KafkaEventBus(topics.kafka(`bench-vf-${suffix}`));
  const db = new Client({ connectionString: databaseUrl });
  let server: Server | undefined;
  let ingress: Awaited<ReturnType<typeof startIngress>> | undefined;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...issuer.env,
    ...topics.env,
    LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
    DATABASE_SCHEMA: schema,
    PROJECTION_GROUP_ID: group,
    // What is timed is the descent, not waits for the rate limit.
    RATE_LIMITS: 'RSP=off',
  };
  try {
    await db.connect();
    log(`${await loadAverage()}; migrating ${schema}`);
    await run([dist('cli.js'), 'migrate'], env);
    const readModelTopics = [
      TOPICS.locationEvents.name,
      TOPICS.locationGroupEvents.name,
      TOPICS.addressGroupEvents.name,
    ];
    const ends = (await Promise.all(readModelTopics.map((topic) => bus.partitionBounds(topic)))).flat();
    const queryDb = new Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
    await queryDb.connect();
    log(`loading ${thousands(ROWS)} locations with COPY`);
    const loadStarted = performance.now();
    try {
      await positionAtLogEnd(queryDb, group, ends);
      await copyReadModel(
        databaseUrl,
        schema,
        readModelRows(ROWS, {
          groups: Array.from({ length: 500 }, () => randomUUID()),
          mdus: Array.from({ length: 20_000 }, () => randomUUID()),
        }),
      );
      await queryDb.query('VACUUM ANALYZE locations');
    } finally {
      await queryDb.end();
    }
    log(`loaded in ${fixed((performance.now() - loadStarted) / 1000)} s; building the mirror (${mirrorSchema})`);
    await db.query(`CREATE SCHEMA ${mirrorSchema}`);
    const mirrorUrl = new URL(databaseUrl);
    mirrorUrl.searchParams.set('options', `-c search_path=${mirrorSchema}`);
    const store = await openMirrorStore(mirrorUrl.toString());
    // The rows lx-sync would have written from an export with versions: body, version, and its digest columns.
    await db.query(`
      INSERT INTO ${mirrorSchema}.locations (id, version, deleted, bucket, hash, body)
      SELECT id, version, false, left(encode(sha256(id::text::bytea), 'hex'), 8),
             left(encode(sha256((id::text || ':' || version)::bytea), 'hex'), 16), body::jsonb
        FROM ${schema}.locations`);
    await db.query(`VACUUM ANALYZE ${mirrorSchema}.locations`);

    server = await startServer([dist('main.js')], env, '/health/ready', openSync(join(dir, 'location-query.log'), 'a'));
    ingress = await startIngress(issuer, server.url);
    const api = new LxApiClient({
      apiUrl: ingress.url,
      clientId: CLIENT_ID,
      clientSecret: 'x',
      requestTimeoutMs: 120_000,
    });
    const verify = new VerifyMirror(api, store);
    const internalToken = await issuer.token({ clientId: CLIENT_ID, scopes: ['locations:internal'] });

    const verifyOnce = async (label: string) => {
      const started = performance.now();
      const report = await verify.execute({ confirmDelayMs: 0 });
      const seconds = (performance.now() - started) / 1000;
      log(`verify (${label}): ${fixed(seconds, 3)} s, ${report.requests} requests, ${report.drifted.length} drifted`);
      return { report, seconds };
    };
    // A first call opens the connections and fills the caches (not measured): as a mirror that runs daily would.
    await verify.execute({ confirmDelayMs: 0 });
    const equal = await verifyOnce('equal mirror');
    if (equal.report.drifted.length !== 0)
      throw new Error(`an equal mirror reported drift: ${JSON.stringify(equal.report.drifted)}`);

    // The drift: a third of the ids deleted, a third at another version, a third added.
    const third = Math.floor(DRIFTED / 3);
    const victims = (
      await db.query<{ id: string; version: number }>(
        `SELECT id::text, version FROM ${mirrorSchema}.locations ORDER BY random() LIMIT $1`,
        [DRIFTED - third],
      )
    ).rows;
    const expected: DriftedId[] = [];
    await store.transaction(async (tx) => {
      for (const [index, victim] of victims.entries()) {
        if (index < third) {
          await tx.removeIf('locations', victim.id, victim.version);
          expected.push({ resource: 'locations', id: victim.id, server: victim.version });
        } else {
          const edited = { id: victim.id, version: victim.version + 1, deleted: false, body: '{}' };
          await tx.replace('locations', edited, victim.version);
          expected.push({ resource: 'locations', id: victim.id, server: victim.version, mirror: victim.version + 1 });
        }
      }
      for (let n = 0; n < third; n++) {
        const id = randomUUID();
        await tx.replace('locations', { id, version: 1, deleted: false, body: '{}' }, undefined);
        expected.push({ resource: 'locations', id, mirror: 1 });
      }
    });
    const sorted = (items: readonly DriftedId[]) => [...items].sort((a, b) => (key(a) < key(b) ? -1 : 1));
    const drifted = await verifyOnce(`${DRIFTED} drifted`);
    if (JSON.stringify(sorted(drifted.report.drifted)) !== JSON.stringify(sorted(expected))) {
      throw new Error(`verify found ${JSON.stringify(drifted.report.drifted)}, expected ${JSON.stringify(expected)}`);
    }

    log('baseline: the full comparison (every location streamed with its version, compared with the mirror)');
    const baselineStarted = performance.now();
    const found = await fullComparison(server.url, internalToken, db, mirrorSchema);
    const baselineSeconds = (performance.now() - baselineStarted) / 1000;
    if (JSON.stringify(sorted(found)) !== JSON.stringify(sorted(expected))) {
      throw new Error(`the full comparison found ${JSON.stringify(found)}, expected ${JSON.stringify(expected)}`);
    }
    log(`baseline: ${fixed(baselineSeconds, 2)} s`);
    const loadAfter = await loadAverage();
    await store.close();

    process.stdout.write(
      `\nlx-sync verify, ${thousands(ROWS)} locations in the read model and a PostgreSQL mirror; ${loadAfter} after\n\n`,
    );
    process.stdout.write(
      `${table(
        ['comparison', 'seconds', 'requests', 'drifted found', 'ratio to the full comparison'],
        [
          [
            'verify, equal mirror',
            fixed(equal.seconds, 3),
            equal.report.requests,
            0,
            fixed(equal.seconds / baselineSeconds, 4),
          ],
          [
            `verify, ${DRIFTED} drifted`,
            fixed(drifted.seconds, 3),
            drifted.report.requests,
            drifted.report.drifted.length,
            fixed(drifted.seconds / baselineSeconds, 4),
          ],
          ['full comparison (baseline)', fixed(baselineSeconds, 2), 1, found.length, '1'],
        ],
      )}\n`,
    );
    const ratio = drifted.seconds / baselineSeconds;
    process.stdout.write(
      `\nTarget: under 5 % of the full comparison (${fixed(ratio * 100, 2)} %: ${ratio < 0.05 ? 'met' : 'MISSED'}) ` +
        `and under 1,000 requests (${drifted.report.requests}: ${drifted.report.requests < 1000 ? 'met' : 'MISSED'}).\n`,
    );
  } finally {
    await ingress?.close();
    await server?.stop();
    await bus.close();
    if (process.env['BENCH_KEEP'] !== '1') {
      await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
      await db.query(`DROP SCHEMA IF EXISTS ${mirrorSchema} CASCADE`).catch(() => undefined);
      await topics.remove();
    }
    await db.end();
    await issuer.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
