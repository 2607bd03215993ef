import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { LOCATION_CSV_COLUMNS, prefixedName, TOPICS } from '@lx/contracts';
import {
  createPrivateTopics,
  freePort,
  loadInfraEnv,
  REPO_ROOT,
  requireEnv,
  startTestTokenIssuer,
  waitFor,
  testKafkaClient,
  testKafkaLogin,
} from '@lx/testing';
import { uploadImportFile } from '../../services/location-command/src/cli/import-upload';
import {
  generateGroups,
  SAME_WORK_COLUMNS,
  writeLocationDocuments,
  writeLocationsCsv,
  writeLocationsNdjson,
  writeSameWorkRows,
} from './generate-locations';

/**
 * Import benchmark of location-command, with its baselines measured in the same run:
 *   1. generate N realistic locations as a CSV file in the export layout, N others as NDJSON, and the events and
 *      state rows of the CSV's locations already built (not timed);
 *   2. baselines: Postgres COPY of each file into a plain table (psql \copy, client-side like an upload: the CSV into
 *      text columns, the NDJSON lines into one text column), COPY of the same locations as one JSON document each
 *      into a plain (id, document) table, and the same-work baseline: COPY of the pre-built events and state rows into
 *      tables with the service's indexes and constraints (the floor of any event-sourced writer);
 *   3. start the built service as its own process on a fresh schema and on topics of the run's own (a topic prefix,
 *      deleted at the end: the events never reach a running stack's consumers), create the groups the rows reference;
 *   4. stream the CSV, then the NDJSON file to POST /operator/imports: rows/s into the event store; after each, wait
 *      until the relay has put every event into Kafka (topic high watermarks) and moved its checkpoint past them;
 *   5. import the CSV again: every row unchanged, no event (idempotency at scale);
 *   6. peak RSS of the service process (VmHWM).
 * Usage: bash bench/location-command/run.sh [rows]   (default 1,000,000; loopback only, bounded by the row count;
 * BENCH_SERVICE_NODE_OPTIONS and BENCH_SERVICE_NODE_ARGS set the service's node options and flags, e.g. a CPU profile)
 */
const run = promisify(execFile);
const rows = Number(process.argv[2] ?? 1_000_000);
const PSQL = process.env['PSQL'] ?? 'psql';
const SERVICE_MAIN = join(REPO_ROOT, 'dist/services/location-command/services/location-command/src/main.js');
/**
 * The service's heap cap, as a deployment sets it to fit its memory limit: without one, V8 sizes the old space from
 * the host's RAM and, at a million rows a minute of garbage, lets it grow far beyond what the import keeps alive.
 */
const SERVICE_NODE_OPTIONS = process.env['BENCH_SERVICE_NODE_OPTIONS'] ?? '--max-old-space-size=192';
/** Further node flags for the service that NODE_OPTIONS refuses, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
const SERVICE_NODE_ARGS = (process.env['BENCH_SERVICE_NODE_ARGS'] ?? '').split(' ').filter((arg) => arg !== '');

interface Measurement {
  label: string;
  rows: number;
  seconds: number;
}

async function main(): Promise<void> {
  if (!Number.isInteger(rows) || rows < 1) throw new Error('rows must be a positive integer');
  loadInfraEnv();
  const databaseUrl = requireEnv('DATABASE_URL');
  const brokers = requireEnv('KAFKA_BROKERS').split(',');
  const suffix = `${Date.now().toString(36)}${randomInt(1_000_000).toString(36)}`;
  const schema = `bench_lc_${suffix}`;
  const dir = await mkdtemp(join(tmpdir(), 'lx-import-bench-'));
  const file = join(dir, 'locations.csv');
  const documents = join(dir, 'locations.copy');
  const ndjson = join(dir, 'locations.ndjson');
  const floorEvents = join(dir, 'events.copy');
  const floorStates = join(dir, 'states.copy');
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  const topics = await createPrivateTopics(brokers, 'lxbench');
  const issuer = await startTestTokenIssuer();
  let service: ChildProcess | undefined;

  try {
    log(`generating ${rows.toLocaleString('en-US')} locations`);
    const groups = generateGroups(rows);
    await writeLocationsCsv(file, rows, rows, groups);
    await writeLocationDocuments(documents, rows, rows, groups);
    await writeLocationsNdjson(ndjson, rows, rows + 1, groups);
    await writeSameWorkRows(floorEvents, floorStates, rows, rows, groups);
    const size = (await stat(file)).size;
    log(`file: ${(size / 1e6).toFixed(0)} MB`);

    await db.query(`CREATE SCHEMA ${schema}`);
    const columns = LOCATION_CSV_COLUMNS.map((column) => `"${column}" text`).join(', ');
    const copy = await copyBaseline(
      db,
      databaseUrl,
      `${schema}.copy_baseline (${columns})`,
      file,
      'WITH (FORMAT csv, HEADER true)',
    );
    const copyDocuments = await copyBaseline(
      db,
      databaseUrl,
      `${schema}.documents_baseline (id uuid, document json)`,
      documents,
      '',
    );
    // Each NDJSON line as one text value: CSV format with a quote and a delimiter that JSON text never holds.
    const copyNdjson = await copyBaseline(
      db,
      databaseUrl,
      `${schema}.ndjson_baseline (line text)`,
      ndjson,
      "WITH (FORMAT csv, QUOTE E'\\x01', DELIMITER E'\\x02')",
    );

    const port = await freePort();
    service = spawn(process.execPath, [...SERVICE_NODE_ARGS, SERVICE_MAIN], {
      env: {
        ...process.env,
        ...issuer.env,
        ...topics.env,
        HTTP_PORT: String(port),
        HTTP_HOST: '127.0.0.1',
        DATABASE_SCHEMA: schema,
        LOG_LEVEL: 'warn',
        NODE_OPTIONS: SERVICE_NODE_OPTIONS,
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitFor('the service to be ready', async () => (await fetch(`${baseUrl}/health/ready`)).ok, 60_000);
    const token = await issuer.token({ scopes: ['locations:write'] });
    await createGroups(baseUrl, token, groups);
    const sameWork = await sameWorkBaseline(db, databaseUrl, schema, floorEvents, floorStates);

    const kafka = testKafkaClient(`bench-${suffix}`, { brokers, ...testKafkaLogin() });
    const admin = kafka.admin();
    await admin.connect();
    const topicEnd = async () =>
      (await admin.fetchTopicOffsets(prefixedName(topics.topicPrefix, TOPICS.locationEvents.name))).reduce(
        (sum, p) => sum + Number(p.high),
        0,
      );
    const unpublished = async () =>
      Number(
        (
          await db.query<{ n: string }>(
            `SELECT count(*) AS n FROM ${schema}.events e, ${schema}.relay_checkpoint c
              WHERE (e.tx_id, e.global_position) > (c.tx_id, c.position)`,
          )
        ).rows[0]?.n,
      );

    /** Imports `path`, then waits for its events on Kafka: seconds into the store, seconds until all are on Kafka. */
    const importAndRelay = async (path: string, format: 'csv' | 'ndjson') => {
      const before = await topicEnd();
      log(`importing ${format}`);
      const started = performance.now();
      let kafkaDoneAt: number | undefined;
      const kafkaWatch = (async () => {
        while ((await topicEnd()) - before < rows) await sleep(100);
        kafkaDoneAt = performance.now();
      })();
      const report = await uploadImportFile({ baseUrl, file: path, token, mode: 'merge', format });
      const seconds = (performance.now() - started) / 1000;
      assertReport(report, { created: rows });
      log(`imported in ${seconds.toFixed(1)} s; waiting for Kafka`);
      await kafkaWatch;
      await waitFor('the relay checkpoint past every event', async () => (await unpublished()) === 0, 600_000);
      return { seconds, kafkaSeconds: ((kafkaDoneAt ?? performance.now()) - started) / 1000 };
    };
    const csvImport = await importAndRelay(file, 'csv');
    const importSeconds = csvImport.seconds;
    const ndjsonImport = await importAndRelay(ndjson, 'ndjson');

    log('importing the same file again');
    const eventsBefore = await eventCount(db, schema);
    const againStarted = performance.now();
    const again = await uploadImportFile({ baseUrl, file, token, mode: 'merge', format: 'csv' });
    const againSeconds = (performance.now() - againStarted) / 1000;
    assertReport(again, { unchanged: rows });
    const newEvents = (await eventCount(db, schema)) - eventsBefore;

    const status = await readFile(`/proc/${service.pid}/status`, 'utf8');
    const peakRssMb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
    await admin.disconnect();

    const results: Measurement[] = [
      { label: 'baseline: COPY of the CSV into a plain table of text columns', rows, seconds: copy },
      { label: 'baseline: COPY of the NDJSON lines into a plain table of one text column', rows, seconds: copyNdjson },
      { label: 'baseline: COPY of the same locations as JSON documents (id, document)', rows, seconds: copyDocuments },
      {
        label: 'baseline, same work: COPY of the built events and state rows into tables with the same indexes',
        rows,
        seconds: sameWork,
      },
      { label: 'import CSV: rows into the event store', rows, seconds: importSeconds },
      { label: 'import CSV: events reaching Kafka (from import start)', rows, seconds: csvImport.kafkaSeconds },
      { label: 'import NDJSON (other locations): rows into the event store', rows, seconds: ndjsonImport.seconds },
      { label: 'import NDJSON: events reaching Kafka (from import start)', rows, seconds: ndjsonImport.kafkaSeconds },
      { label: 're-import of the CSV (all unchanged)', rows, seconds: againSeconds },
    ];
    printTable(
      results,
      { csv: copy, ndjson: copyNdjson, sameWork },
      csvImport.seconds,
      ndjsonImport.seconds,
      peakRssMb,
      newEvents,
      size,
    );
  } finally {
    if (service !== undefined && service.exitCode === null && service.signalCode === null) {
      service.kill('SIGTERM');
      await once(service, 'exit');
    }
    await issuer.close();
    if (process.env['BENCH_KEEP'] !== '1') {
      await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
      await topics.remove();
    }
    await db.end();
  }
}

/** Seconds to COPY `file` into a new plain table (no key, no index, no constraint): the raw ingest rate of this Postgres. */
async function copyBaseline(
  db: Client,
  databaseUrl: string,
  table: string,
  file: string,
  options: string,
): Promise<number> {
  const name = table.split(' ', 1)[0]!;
  await db.query(`CREATE TABLE ${table}`);
  log(`baseline: COPY into ${name}`);
  const started = performance.now();
  await run(PSQL, [databaseUrl, '-v', 'ON_ERROR_STOP=1', '-c', `\\copy ${name} FROM '${file}' ${options}`]);
  const seconds = (performance.now() - started) / 1000;
  const copied = Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${name}`)).rows[0]?.n);
  if (copied !== rows) throw new Error(`COPY loaded ${copied} rows into ${name}, expected ${rows}`);
  await db.query(`DROP TABLE ${name}`);
  return seconds;
}

async function createGroups(
  baseUrl: string,
  token: string,
  groups: { locationGroupIds: string[]; addressGroupIds: string[] },
): Promise<void> {
  const put = async (path: string, body: unknown) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`PUT ${path}: ${response.status} ${await response.text()}`);
  };
  for (const [n, id] of groups.locationGroupIds.entries()) {
    await put(`/operator/location-groups/${id}`, { name: `Deployment phase ${n + 1}`, type: 'OTHER' });
  }
  for (const [n, id] of groups.addressGroupIds.entries()) {
    await put(`/operator/address-groups/${id}`, { name: `MDU complex ${n + 1}`, type: 'MDU_COMPLEX' });
  }
}

function assertReport(result: { status: number; body: unknown }, expected: Record<string, number>): void {
  const report = result.body as Record<string, unknown>;
  const wrong = Object.entries(expected).filter(([key, value]) => report[key] !== value);
  if (result.status !== 200 || wrong.length > 0 || report['rejected'] !== 0) {
    throw new Error(`unexpected import result ${result.status}: ${JSON.stringify(report).slice(0, 2_000)}`);
  }
}

async function eventCount(db: Client, schema: string): Promise<number> {
  return Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.events`)).rows[0]?.n);
}

function printTable(
  results: Measurement[],
  baselines: { csv: number; ndjson: number; sameWork: number },
  csvSeconds: number,
  ndjsonSeconds: number,
  peakRssMb: number,
  newEvents: number,
  bytes: number,
): void {
  const rate = (m: Measurement) => Math.round(m.rows / m.seconds);
  const ratio = (baseline: number, seconds: number) => (baseline / seconds).toFixed(3);
  const lines = [
    `| measurement (${rows.toLocaleString('en-US')} rows, ${(bytes / 1e6).toFixed(0)} MB CSV) | seconds | rows/s |`,
    '|---|---:|---:|',
    ...results.map((m) => `| ${m.label} | ${m.seconds.toFixed(1)} | ${rate(m).toLocaleString('en-US')} |`),
    '',
    `CSV import: ${ratio(baselines.csv, csvSeconds)} of the COPY of its file, ` +
      `${ratio(baselines.sameWork, csvSeconds)} of the same-work baseline (target ≥ 0.5)`,
    `NDJSON import: ${ratio(baselines.ndjson, ndjsonSeconds)} of the COPY of its file, ` +
      `${ratio(baselines.sameWork, ndjsonSeconds)} of the same-work baseline (target ≥ 0.5)`,
    `peak RSS of the service process (VmHWM): ${peakRssMb.toFixed(0)} MB (target < 300 MB; NODE_OPTIONS=${SERVICE_NODE_OPTIONS || '(none)'})`,
    `events emitted by the re-import: ${newEvents}`,
  ];
  process.stdout.write(`\n${lines.join('\n')}\n`);
}

/**
 * Seconds to COPY the pre-built events and state rows into copies of the service's events and aggregate_state tables
 * (LIKE … INCLUDING ALL: the same columns, defaults, keys, unique and check constraints and indexes; no trigger).
 */
async function sameWorkBaseline(
  db: Client,
  databaseUrl: string,
  schema: string,
  eventsFile: string,
  statesFile: string,
): Promise<number> {
  const floor = `${schema}_floor`;
  await db.query(`CREATE SCHEMA ${floor}`);
  try {
    await db.query(`CREATE TABLE ${floor}.events (LIKE ${schema}.events INCLUDING ALL)`);
    await db.query(`CREATE TABLE ${floor}.aggregate_state (LIKE ${schema}.aggregate_state INCLUDING ALL)`);
    log('baseline: COPY of the built events and state rows');
    const started = performance.now();
    for (const [table, columns, path] of [
      ['events', SAME_WORK_COLUMNS.events, eventsFile],
      ['aggregate_state', SAME_WORK_COLUMNS.states, statesFile],
    ] as const) {
      await run(PSQL, [
        databaseUrl,
        '-v',
        'ON_ERROR_STOP=1',
        '-c',
        `\\copy ${floor}.${table} (${columns.join(', ')}) FROM '${path}'`,
      ]);
    }
    const seconds = (performance.now() - started) / 1000;
    const copied = Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${floor}.events`)).rows[0]?.n);
    if (copied !== rows) throw new Error(`the same-work COPY loaded ${copied} events, expected ${rows}`);
    return seconds;
  } finally {
    await db.query(`DROP SCHEMA ${floor} CASCADE`);
  }
}

function log(message: string): void {
  process.stderr.write(`[import-bench] ${message}\n`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `[import-bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
