/**
 * Full JSON and CSV exports of export-worker at 100,000 and at 1,000,000 locations (and the CSV file for spreadsheets,
 * `spreadsheetSafe`), each beside a baseline of its own format measured in the same run just before it: Postgres
 * `COPY (SELECT <column> …) TO STDOUT` of the column that holds the format's bytes (the JSON bodies, `body`, for json;
 * the CSV records, `csv`, for csv), of the same rows in the same order, piped as it is produced into an upload to MinIO through the service's own adapter
 * (`MinioObjectStore.put` of libs/storage: the same client settings, 8 MiB parts, two part buffers, one part sent
 * while the next fills). COPY and upload overlap as the export's read and upload do: no file in between.
 *
 *   bash bench/export/run.sh     (BENCH_ROWS, default 1e6; BENCH_SMALL_ROWS, default a tenth of it; BENCH_KEEP=1)
 *
 * Setup (not timed): the four services an export involves run from dist/ as their own processes, as in production,
 * each on a fresh schema (bench_ex_*) and on topics of the run's own (a topic prefix, deleted at the end):
 * location-command (the watermark fence), location-query (the snapshot stream and the group check),
 * statistics-projection (the size check at request time) and export-worker. The two projections are positioned at
 * the end of the topics, so a `catchUp` snapshot is satisfied at once and they read no history.
 * BENCH_ROWS realistic locations are written straight into location-query's read model with COPY (as the other read
 * side benchmarks do), the first BENCH_SMALL_ROWS of them in one location group G that also exists in
 * `location_groups`: the small exports are `filters: {locationGroupId: G}`, the large ones full exports.
 * statistics-projection's schema stays empty, so the size check at request time counts 0 (it is a counters lookup
 * whatever the size; EXPORT_MAX_LOCATIONS is set far above the row count anyway). The peers' token endpoint is a
 * stand-in served by this process that hands out tokens of the test token issuer, which every service trusts.
 *
 * Measured per (rows, format): wall seconds from POST /locations/exports to COMPLETED (GET polled every 200 ms),
 * rows/s, MB/s of the file (sizeBytes), the ratio to the format's baseline rows/s, and the peak RSS (VmHWM) of
 * export-worker and location-query after each export, plus the highest RSS sampled at each poll during it. The two
 * are started afresh for each size, so each size's peak is its own (VmHWM is a lifetime peak: measured in one pair
 * of processes, the large size's peak would include the small one's). Each export's totalCount must equal the row
 * count, and its file's size must follow from the baseline's bytes (the same rows, other framing: see
 * `expectedSize`; a spreadsheet-safe file at least that size), or the run fails. The services run with NODE_OPTIONS="--max-old-space-size=192
 * --max-semi-space-size=1" (BENCH_SERVICE_NODE_OPTIONS), what the Helm chart runs export-worker and location-query
 * with (helm/location-exchange/values.yaml): without a heap cap V8 sizes the old space from the host's RAM and lets
 * garbage pile up far beyond what the service keeps alive; with V8's default young generation (up to 16 MB
 * semi-spaces) the stream chunks of a long export die unseen until tens of MB of them (outside the V8 heap) force a
 * full collection (docs/operations.md, *Memory*). The log shows each baseline's plan (see `baselinePlan`). Loopback
 * only; the services' warnings go to log files in the temporary directory, and are summed up at the end. BENCH_KEEP=1
 * keeps the schemas, the topics, the objects and the files.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { openSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server as HttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { Client as MinioClient } from 'minio';
import { Client } from 'pg';
import {
  csvRecord,
  EXPORT_CONTENT_TYPES,
  type ExportStatusReply,
  exportStatusReplySchema,
  LOCATION_CSV_COLUMNS,
  TOPICS,
} from '@lx/contracts';
import { KafkaEventBus } from '@lx/messaging';
import { MinioObjectStore } from '@lx/storage';
import { loadInfraEnv, REPO_ROOT, requireEnv } from '../../libs/testing/src/infra-env';
import { createPrivateTopics } from '../../libs/testing/src/kafka-topics';
import { startTestTokenIssuer, type TestTokenIssuer } from '../../libs/testing/src/token-issuer';
import {
  copyInto,
  copyReadModel,
  copyValue,
  loadAverage,
  log,
  positionAtLogEnd,
  processMemoryMb,
  readModelRows,
  run,
  type Server,
  startServer,
  table,
} from '../location-query/bench-support';

const ROWS = Number(process.env['BENCH_ROWS'] ?? 1_000_000);
const SMALL_ROWS = Number(process.env['BENCH_SMALL_ROWS'] ?? Math.round(ROWS / 10));
/** The one group in the read model: G, which the small exports select. */
const GROUP_NAME = 'Benchmark group';
/** The services' V8 settings, as the Helm chart sets them for export-worker and location-query (see the header). */
const SERVICE_NODE_OPTIONS =
  process.env['BENCH_SERVICE_NODE_OPTIONS'] ?? '--max-old-space-size=192 --max-semi-space-size=1';
const POLL_MS = 200;
/** Longest wait for one export to finish. */
const EXPORT_TIMEOUT_MS = 30 * 60_000;
const PSQL = process.env['PSQL'] ?? 'psql';
const SERVICE_CLIENT_ID = 'bench-export-worker';
type Format = 'json' | 'csv';
/**
 * What is exported of each selection, each after a baseline of its format: the two formats, and the CSV file for
 * spreadsheets (`spreadsheetSafe`: formula cells defused as the records stream), against the CSV baseline too.
 */
const VARIANTS: readonly { format: Format; spreadsheetSafe?: true }[] = [
  { format: 'json' },
  { format: 'csv' },
  { format: 'csv', spreadsheetSafe: true },
];
/**
 * What the baseline copies per format: the read model's column that holds the format's bytes, as the snapshot stream
 * reads it (location-query's location-snapshot.stream.ts). In COPY's text format a json row comes out as the snapshot
 * streams it (the body, then LF); a csv record's closing CRLF comes out escaped, as `\r\n` before the row's LF.
 */
const BASELINE_COLUMN: Readonly<Record<Format, string>> = { json: 'body', csv: 'csv' };
/** Bytes COPY's text format adds to each csv record: its CR and LF written as two characters each. */
const CSV_ESCAPE_BYTES = 2;
const dist = (service: string, file: string) =>
  join(REPO_ROOT, `dist/services/${service}/services/${service}/src/${file}`);
const mb = (bytes: number) => bytes / 1e6;
const fixed = (value: number, digits = 1) => value.toFixed(digits);
const thousands = (value: number) => Math.round(value).toLocaleString('en-US');

/** The client-credentials token endpoint of the peers (AUTH_TOKEN_URL): tokens of the test issuer for the worker. */
async function startTokenEndpoint(issuer: TestTokenIssuer): Promise<{ url: string; close(): Promise<void> }> {
  const server: HttpServer = createServer((request, response) => {
    if (request.method !== 'POST' || request.url !== '/oauth/token') {
      response.writeHead(404).end();
      return;
    }
    request.resume();
    issuer.token({ clientId: SERVICE_CLIENT_ID, scopes: ['locations:read', 'locations:internal'] }).then(
      (token) => {
        response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        response.end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 600 }));
      },
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/oauth/token`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Selection {
  label: string;
  rows: number;
  /** The body's filters, and the WHERE clause of the baseline that selects the same rows. */
  filters?: { locationGroupId: string };
  where: string;
}

interface ExportResult {
  selection: Selection;
  format: Format;
  spreadsheetSafe?: true;
  /** The baseline measured just before it. */
  baseline: BaselineResult;
  seconds: number;
  sizeBytes: number;
  exportTimestamp: string;
  /**
   * VmHWM after the export (lifetime peak), and the highest VmRSS sampled while it ran; MiB. For export-worker also
   * the highest V8 heap (total) and external memory (Buffers) its /metrics showed at the same polls.
   */
  worker: { peak: number; sampled: number; heap: number; external: number };
  query: { peak: number; sampled: number };
}

interface BaselineResult {
  selection: Selection;
  format: Format;
  /** Bytes COPY wrote and the upload stored. */
  bytes: number;
  seconds: number;
}

/** Counts the LFs that pass: in COPY's text format, one per row (a raw LF inside a value is escaped). */
class RowCounter extends Transform {
  rows = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) this.rows += 1;
    callback(null, chunk);
  }
}

async function main(): Promise<void> {
  if (!Number.isInteger(ROWS) || ROWS < 1) throw new Error('BENCH_ROWS must be a positive integer');
  if (!Number.isInteger(SMALL_ROWS) || SMALL_ROWS < 1 || SMALL_ROWS > ROWS) {
    throw new Error('BENCH_SMALL_ROWS must be a positive integer no larger than BENCH_ROWS');
  }
  loadInfraEnv();
  const databaseUrl = requireEnv('DATABASE_URL');
  const brokers = requireEnv('KAFKA_BROKERS').split(',');
  const bucket = requireEnv('MINIO_BUCKET');
  const minioUrl = new URL(requireEnv('MINIO_ENDPOINT_URL'));
  const storage = {
    endpointUrl: minioUrl.toString(),
    publicEndpointUrl: minioUrl.toString(),
    accessKey: requireEnv('MINIO_ACCESS_KEY'),
    secretKey: requireEnv('MINIO_SECRET_KEY'),
    bucket,
    region: process.env['MINIO_REGION'] ?? 'us-east-1',
  };
  /** The baseline's upload: the service's adapter with the service's settings and user. */
  const store = new MinioObjectStore(storage);
  /** Lists and removes the run's objects at the end. */
  const minio = new MinioClient({
    endPoint: minioUrl.hostname,
    port: Number(minioUrl.port || (minioUrl.protocol === 'https:' ? 443 : 80)),
    useSSL: minioUrl.protocol === 'https:',
    accessKey: storage.accessKey,
    secretKey: storage.secretKey,
    region: storage.region,
  });

  const suffix = `${Date.now().toString(36)}`;
  const schemas = {
    command: `bench_ex_lc_${suffix}`,
    query: `bench_ex_lq_${suffix}`,
    statistics: `bench_ex_sp_${suffix}`,
    worker: `bench_ex_ew_${suffix}`,
  };
  const groups = { query: `bench-ex-lq-${suffix}`, statistics: `bench-ex-sp-${suffix}` };
  const clientId = `bench-export-${suffix}`;
  const baselinePrefix = `bench/export-${suffix}/`;
  const dir = await mkdtemp(join(tmpdir(), 'lx-export-bench-'));
  const topics = await createPrivateTopics(brokers, 'lxbench');
  const issuer = await startTestTokenIssuer();
  const tokenEndpoint = await startTokenEndpoint(issuer);
  const bus = new KafkaEventBus(topics.kafka(`bench-ex-${suffix}`));
  const db = new Client({ connectionString: databaseUrl, options: `-c search_path=${schemas.query}` });
  const servers: Server[] = [];
  const logs: Record<string, string> = {};
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    ...issuer.env,
    ...topics.env,
    LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
    NODE_OPTIONS: SERVICE_NODE_OPTIONS,
  };
  const start = (service: string, env: NodeJS.ProcessEnv) => {
    logs[service] = join(dir, `${service}.log`);
    return startServer([dist(service, 'main.js')], env, '/health/ready', openSync(logs[service], 'a'));
  };

  try {
    await db.connect();
    log(`${await loadAverage()}; migrating ${schemas.query} and ${schemas.statistics}`);
    const queryEnv = { ...base, DATABASE_SCHEMA: schemas.query, PROJECTION_GROUP_ID: groups.query };
    const statisticsEnv = { ...base, DATABASE_SCHEMA: schemas.statistics, PROJECTION_GROUP_ID: groups.statistics };
    await run([dist('location-query', 'cli.js'), 'migrate'], queryEnv);
    await run([dist('statistics-projection', 'cli.js'), 'migrate'], statisticsEnv);
    const readModelTopics = [
      TOPICS.locationEvents.name,
      TOPICS.locationGroupEvents.name,
      TOPICS.addressGroupEvents.name,
    ];
    const ends = (await Promise.all(readModelTopics.map((topic) => bus.partitionBounds(topic)))).flat();
    await positionAtLogEnd(db, groups.query, ends);
    const statisticsDb = new Client({ connectionString: databaseUrl, options: `-c search_path=${schemas.statistics}` });
    await statisticsDb.connect();
    try {
      const locationEnds = ends.filter((end) => end.topic === TOPICS.locationEvents.name);
      await positionAtLogEnd(statisticsDb, groups.statistics, locationEnds);
    } finally {
      await statisticsDb.end();
    }

    log(`loading ${thousands(ROWS)} locations with COPY (the first ${thousands(SMALL_ROWS)} in group G)`);
    const loadStarted = performance.now();
    const group = randomUUID();
    await copyInto(
      databaseUrl,
      `${schemas.query}.location_groups`,
      ['id', 'version', 'name', 'type', 'deleted'],
      [[group, 1, GROUP_NAME, 'OTHER', false].map(copyValue).join('\t')],
    );
    await copyReadModel(
      databaseUrl,
      schemas.query,
      readModelRows(ROWS, {
        groups: Array.from({ length: 500 }, () => randomUUID()),
        mdus: Array.from({ length: 20_000 }, () => randomUUID()),
        leadingGroup: { id: group, count: SMALL_ROWS },
      }),
    );
    await db.query('VACUUM ANALYZE locations');
    log(`loaded in ${fixed((performance.now() - loadStarted) / 1000)} s`);

    const [command, statistics] = await Promise.all([
      start('location-command', { ...base, DATABASE_SCHEMA: schemas.command }),
      start('statistics-projection', statisticsEnv),
    ]);
    servers.push(command, statistics);
    /** export-worker and location-query, started afresh for each size (see the header). */
    const startMeasured = async () => {
      const query = await start('location-query', queryEnv);
      const worker = await start('export-worker', {
        ...base,
        DATABASE_SCHEMA: schemas.worker,
        AUTH_TOKEN_URL: tokenEndpoint.url,
        SERVICE_CLIENT_ID,
        SERVICE_CLIENT_SECRET: 'bench-export-worker-secret',
        LOCATION_COMMAND_URL: command.url,
        LOCATION_QUERY_URL: query.url,
        STATISTICS_URL: statistics.url,
        EXPORT_MAX_LOCATIONS: String(Math.min(100_000_000, Math.max(ROWS * 10, 5_000_000))),
      });
      servers.push(query, worker);
      const pids = { worker: worker.process.pid!, query: query.process.pid! };
      const atStart = {
        worker: (await processMemoryMb(pids.worker)).peak,
        query: (await processMemoryMb(pids.query)).peak,
      };
      return { query, worker, pids, atStart };
    };
    let measured = await startMeasured();
    // The baseline's client opens its connection before it is timed, as the service's did at boot (ensureBucket).
    await store.ping();
    const token = await issuer.token({ clientId, scopes: ['locations:read'] });
    const headers = { authorization: `Bearer ${token}` };

    const exportOnce = async (
      selection: Selection,
      format: Format,
      baseline: BaselineResult,
      spreadsheetSafe?: true,
    ): Promise<ExportResult> => {
      log(`export: ${selection.label}, ${format}${spreadsheetSafe ? ' (spreadsheetSafe)' : ''}`);
      const { worker, pids } = measured;
      const sampled = { worker: 0, query: 0, heap: 0, external: 0 };
      const sample = async () => {
        const metrics = await (await fetch(`${worker.url}/metrics`)).text();
        sampled.heap = Math.max(sampled.heap, metricMb(metrics, 'nodejs_heap_size_total_bytes'));
        sampled.external = Math.max(sampled.external, metricMb(metrics, 'nodejs_external_memory_bytes'));
        sampled.worker = Math.max(sampled.worker, (await processMemoryMb(pids.worker)).rss);
        sampled.query = Math.max(sampled.query, (await processMemoryMb(pids.query)).rss);
      };
      const started = performance.now();
      const response = await fetch(`${worker.url}/locations/exports`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({
          format,
          ...(selection.filters ? { filters: selection.filters } : {}),
          ...(spreadsheetSafe ? { spreadsheetSafe } : {}),
        }),
      });
      const accepted = (await response.json()) as { requestId?: string };
      if (response.status !== 202 || accepted.requestId === undefined) {
        throw new Error(`POST /locations/exports answered ${response.status}: ${JSON.stringify(accepted)}`);
      }
      let status: ExportStatusReply;
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        await sample();
        const reply = await fetch(`${worker.url}/locations/exports/${accepted.requestId}`, { headers });
        status = exportStatusReplySchema.parse(await reply.json());
        if (status.status !== 'PENDING') break;
        if (performance.now() - started > EXPORT_TIMEOUT_MS) {
          throw new Error(`export ${accepted.requestId} still PENDING after ${EXPORT_TIMEOUT_MS / 1000} s`);
        }
      }
      const seconds = (performance.now() - started) / 1000;
      if (status.status !== 'COMPLETED') {
        throw new Error(`export ${accepted.requestId} (${selection.label}, ${format}): ${JSON.stringify(status)}`);
      }
      if (status.totalCount !== selection.rows) {
        throw new Error(
          `export ${accepted.requestId} (${selection.label}, ${format}) holds ${status.totalCount} locations, expected ${selection.rows}`,
        );
      }
      const result: ExportResult = {
        selection,
        format,
        ...(spreadsheetSafe ? { spreadsheetSafe } : {}),
        baseline,
        seconds,
        sizeBytes: status.sizeBytes,
        exportTimestamp: status.exportTimestamp,
        worker: {
          peak: (await processMemoryMb(pids.worker)).peak,
          sampled: sampled.worker,
          heap: sampled.heap,
          external: sampled.external,
        },
        query: { peak: (await processMemoryMb(pids.query)).peak, sampled: sampled.query },
      };
      log(
        `  ${fixed(seconds)} s, ${thousands(selection.rows / seconds)} rows/s, ${fixed(mb(status.sizeBytes))} MB; ` +
          `peak RSS export-worker ${fixed(result.worker.peak, 0)} MB (sampled: V8 heap up to ` +
          `${fixed(result.worker.heap, 0)} MB, external up to ${fixed(result.worker.external, 0)} MB), ` +
          `location-query ${fixed(result.query.peak, 0)} MB`,
      );
      return result;
    };

    /**
     * The baseline's plan, its nodes on one line, for the log. The planner's own: for a full export a parallel
     * sequential scan, each worker sorting its share by id (in temporary files beyond work_mem), and a merge of the
     * sorted streams. Reading the primary key in order instead (`enable_sort = off`) took 1.5 to 2.5 times as long at
     * 1,000,000 rows (random UUIDs: the index visits the heap in no order; docs/benchmarks.md), so the baseline is left
     * to the planner, as location-query's snapshot COPY is.
     */
    const baselinePlan = async (selection: Selection, format: Format): Promise<string> => {
      const { rows } = await db.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT ${BASELINE_COLUMN[format]} FROM locations ${selection.where} ORDER BY id`,
      );
      return rows.map((row) => row['QUERY PLAN'].trim().replace(/\s+\(cost=.*$/, '')).join(' / ');
    };

    const baselineOnce = async (selection: Selection, format: Format): Promise<BaselineResult> => {
      log(`baseline: COPY of ${selection.label}, ${format} (${BASELINE_COLUMN[format]}), piped into an upload`);
      log(`  plan: ${await baselinePlan(selection, format)}`);
      const started = performance.now();
      // psql writes the COPY's rows to its stdout as the server sends them; -q leaves out the closing "COPY n" tag.
      const psql = spawn(
        PSQL,
        [
          databaseUrl,
          '-q',
          '-v',
          'ON_ERROR_STOP=1',
          '-c',
          `\\copy (SELECT ${BASELINE_COLUMN[format]} FROM ${schemas.query}.locations ${selection.where} ORDER BY id) TO STDOUT`,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const exited = new Promise<number | null>((resolve, reject) => {
        psql.once('error', reject);
        psql.once('close', resolve);
      });
      const counter = new RowCounter();
      psql.stdout.pipe(counter);
      const [{ size }, code] = await Promise.all([
        store.put(`${baselinePrefix}${selection.rows}.${format}`, counter, {
          contentType: EXPORT_CONTENT_TYPES[format],
        }),
        exited,
      ]);
      const seconds = (performance.now() - started) / 1000;
      if (code !== 0) throw new Error(`psql \\copy exited with ${code}`);
      if (counter.rows !== selection.rows)
        throw new Error(`COPY wrote ${counter.rows} rows, expected ${selection.rows}`);
      log(`  ${fixed(seconds)} s, ${thousands(selection.rows / seconds)} rows/s, ${fixed(mb(size))} MB`);
      return { selection, format, bytes: size, seconds };
    };

    /**
     * The size the export's file must have, from the baseline's bytes of the same rows: json, the bodies joined by
     * commas (not ended by LFs) inside the wrapper, which ends with the groups, every live one whatever the location
     * filter (here group G alone); csv, the header row, then the records with their CRLF unescaped.
     */
    const expectedSize = (baseline: BaselineResult, exportTimestamp: string): number => {
      const rows = baseline.selection.rows;
      if (baseline.format === 'csv') {
        return Buffer.byteLength(csvRecord(LOCATION_CSV_COLUMNS)) + baseline.bytes - CSV_ESCAPE_BYTES * rows - rows;
      }
      const wrapper = JSON.stringify({
        exportTimestamp,
        totalCount: rows,
        locations: [],
        locationGroups: [{ id: group, name: GROUP_NAME, type: 'OTHER' }],
        addressGroups: [],
      });
      return baseline.bytes - rows + Math.max(0, rows - 1) + Buffer.byteLength(wrapper);
    };

    const selections: Selection[] = [
      {
        label: `${thousands(SMALL_ROWS)} rows (filters.locationGroupId)`,
        rows: SMALL_ROWS,
        filters: { locationGroupId: group },
        where: `WHERE location_group_id = '${group}'`,
      },
      { label: `${thousands(ROWS)} rows (full export)`, rows: ROWS, where: '' },
    ];
    const loadBefore = await loadAverage();
    const exports: ExportResult[] = [];
    /** Peak RSS of the fresh processes before each size's exports, by row count. */
    const atStart = new Map<number, { worker: number; query: number }>();
    for (const [index, selection] of selections.entries()) {
      if (index > 0) {
        for (const server of [measured.worker, measured.query]) {
          await server.stop();
          servers.splice(servers.indexOf(server), 1);
        }
        measured = await startMeasured();
      }
      atStart.set(selection.rows, measured.atStart);
      for (const { format, spreadsheetSafe } of VARIANTS) {
        // Each export right after its own baseline, so the two see about the same load on a shared machine.
        const baseline = await baselineOnce(selection, format);
        const result = await exportOnce(selection, format, baseline, spreadsheetSafe);
        exports.push(result);
        const expected = expectedSize(baseline, result.exportTimestamp);
        // A defused file is the exact one with an apostrophe before each formula cell: never smaller.
        if (spreadsheetSafe ? result.sizeBytes < expected : result.sizeBytes !== expected) {
          throw new Error(`the ${format} export has ${result.sizeBytes} bytes, the baseline's rows make ${expected}`);
        }
      }
    }
    const loadAfter = await loadAverage();

    process.stdout.write(
      `\nExports of export-worker, ${thousands(ROWS)} locations in the read model; services from dist/ with ` +
        `NODE_OPTIONS=${SERVICE_NODE_OPTIONS || '(none)'}, LOG_LEVEL=${base['LOG_LEVEL']}; ` +
        `${loadBefore} before, ${loadAfter} after. Baseline: COPY of the format's column (json: body, csv: csv) ` +
        `TO STDOUT piped into MinioObjectStore.put, run just before the export\n\n`,
    );
    process.stdout.write(
      `${table(
        [
          'export',
          'format',
          'seconds',
          'rows/s',
          'MB',
          'MB/s',
          'baseline s',
          'baseline rows/s',
          'ratio (target ≥ 0.5)',
          'export-worker peak RSS MB',
          'location-query peak RSS MB',
        ],
        exports.map((result) => {
          const { baseline } = result;
          const ratio = baseline.seconds / result.seconds;
          return [
            result.selection.label,
            `${result.format}${result.spreadsheetSafe ? ' spreadsheetSafe' : ''}`,
            fixed(result.seconds),
            thousands(result.selection.rows / result.seconds),
            fixed(mb(result.sizeBytes)),
            fixed(mb(result.sizeBytes) / result.seconds),
            fixed(baseline.seconds),
            thousands(baseline.selection.rows / baseline.seconds),
            `${fixed(ratio, 3)} ${ratio >= 0.5 ? 'met' : 'NOT met'}`,
            `${fixed(result.worker.peak, 0)} (sampled ${fixed(result.worker.sampled, 0)})`,
            `${fixed(result.query.peak, 0)} (sampled ${fixed(result.query.sampled, 0)})`,
          ];
        }),
      )}\n\n`,
    );
    const peakAfter = (rows: number, service: 'worker' | 'query') =>
      Math.max(...exports.filter((result) => result.selection.rows === rows).map((result) => result[service].peak));
    process.stdout.write(
      `${table(
        [
          'service (fresh processes per size)',
          `peak RSS MB at start, ${thousands(SMALL_ROWS)}`,
          `after the ${thousands(SMALL_ROWS)}-row exports`,
          `at start, ${thousands(ROWS)}`,
          `after the ${thousands(ROWS)}-row exports`,
          'target: < 200 MB, no larger at the large size',
        ],
        (['worker', 'query'] as const).map((service) => {
          const small = peakAfter(SMALL_ROWS, service);
          const large = peakAfter(ROWS, service);
          return [
            service === 'worker' ? 'export-worker' : 'location-query',
            fixed(atStart.get(SMALL_ROWS)![service], 0),
            fixed(small, 0),
            fixed(atStart.get(ROWS)![service], 0),
            fixed(large, 0),
            `${large < 200 ? 'under 200' : 'NOT under 200'}; ${large <= small ? 'no growth' : `grew ${fixed(large - small)} MB`}`,
          ];
        }),
      )}\n`,
    );
  } finally {
    for (const server of servers.reverse()) await server.stop().catch(() => undefined);
    for (const [service, file] of Object.entries(logs)) {
      const lines = (await readFile(file, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '');
      if (lines.length === 0) continue;
      log(`${service} logged ${lines.length} lines at ${base['LOG_LEVEL']} or above; the first ones:`);
      for (const line of lines.slice(0, 5)) process.stderr.write(`  ${line.slice(0, 600)}\n`);
    }
    if (process.env['BENCH_KEEP'] !== '1') {
      for (const schema of Object.values(schemas)) {
        await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
      }
      await removeObjects(minio, bucket, [`exports/${clientId}/`, baselinePrefix]).catch((error: unknown) =>
        log(`could not remove the objects: ${String(error)}`),
      );
      await rm(dir, { recursive: true, force: true });
    } else {
      log(
        `kept: schemas ${Object.values(schemas).join(', ')}; topics under ${topics.topicPrefix}; ` +
          `objects under exports/${clientId}/ and ${baselinePrefix}; ${dir}`,
      );
    }
    await db.end().catch(() => undefined);
    await bus.close();
    await tokenEndpoint.close();
    await issuer.close();
    if (process.env['BENCH_KEEP'] !== '1') await topics.remove();
  }
}

/** A gauge of a Prometheus text exposition, in MiB (0 when absent). */
function metricMb(metrics: string, name: string): number {
  const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1];
  return value === undefined ? 0 : Number(value) / 1024 / 1024;
}

/** Removes every object under the given prefixes of `bucket`. */
async function removeObjects(minio: MinioClient, bucket: string, prefixes: string[]): Promise<void> {
  for (const prefix of prefixes) {
    const names: string[] = [];
    for await (const item of minio.listObjectsV2(bucket, prefix, true) as AsyncIterable<{ name?: string }>) {
      if (item.name !== undefined) names.push(item.name);
    }
    if (names.length > 0) await minio.removeObjects(bucket, names);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
