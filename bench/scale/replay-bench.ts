/**
 * Replay at scale: BENCH_ROWS location events on a topic of the run's own, then location-query's read model and
 * statistics-projection's facts rebuilt from it, each by the service's own `replay` command (cli.js, from dist/, as an
 * SRE runs it; libs/messaging projection-rebuild.ts), one after the other.
 *
 *   node -r ./libs/testing/register-swc.js bench/scale/replay-bench.ts     (run by bench/scale/run.sh, which builds)
 *
 * Settings: BENCH_ROWS (events, default 1e6); BENCH_UPDATE_SHARE (the share of them that are LOCATION_UPDATED of an
 * earlier location, default 0.1; the rest are LOCATION_CREATED, one per location); BENCH_PRODUCE_BATCH (events per
 * publish, default 3000: about 500 per partition, half a megabyte, under the broker's 1 MB record batch limit);
 * BENCH_PRODUCERS (publishes in flight, each on its own producer, default 4); BENCH_KAFKA_DATA_DIR (the broker's
 * log.dirs, comma-separated; default the local broker's, $LX_STATE_DIR/kafka/data); BENCH_SERVICE_NODE_OPTIONS (the
 * replays' NODE_OPTIONS, default --max-old-space-size=192: without a heap cap V8 sizes the old space from the host's
 * RAM and lets garbage pile up, as bench:import and bench:export found); BENCH_RESULT_FILE (also write the results as
 * JSON there); BENCH_KEEP=1 keeps the schemas and the topics.
 *
 * The events are what location-command's relay publishes (event-envelope.factory.ts): keyed by the location id, the
 * OAF-100 envelope serialized once as the value (type, id, timestamp, source `location-command`, the complete
 * resource as data, and on updates `modifiedFields`), the aggregate version and a correlation id as headers, no
 * compression. The locations are bench-support's realistic ones (those the read-side benchmarks COPY into the read
 * model). An update changes a location's serviceability status (version 2); it is only drawn for a location whose
 * creation Kafka has acknowledged, so every location's events are on its partition in order. Production is timed
 * (events/s, MB/s of values) and is as fast as the client goes: BENCH_PRODUCERS idempotent producers
 * (KafkaEventBus, as the relay uses it), each sending BENCH_PRODUCE_BATCH events at a time.
 *
 * Each replay runs on a fresh schema (migrated by the replay itself) with no service running, so it reads the whole
 * topic under its rebuild group and switches once at the end. Measured: wall seconds from the command's start to its
 * exit, the rebuild's own seconds (its JSON answer: from the rebuild's start to the switch; of them, for
 * statistics-projection, the completion of its bulk phase: the counters and rollups derived from the facts), events/s
 * over the latter, and the command's peak RSS (VmHWM from /proc, sampled every 200 ms until it exits). Then the schema's disk
 * use (pg_table_size and pg_indexes_size per table: heap with TOAST, and indexes) is read, the rows are counted (one
 * per location, or the run fails) and the schema is dropped before the next replay, so never two large data sets are
 * on disk at once besides the topic. Last, the topic's size on the broker's disk (the partitions' directories,
 * allocated blocks), and the topic is deleted. Services log at BENCH_LOG_LEVEL (warn).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { KAFKA_HEADERS, type Location, TOPICS } from '@lx/contracts';
import { KafkaEventBus, type OutgoingMessage } from '@lx/messaging';
import { loadInfraEnv, REPO_ROOT, requireEnv } from '../../libs/testing/src/infra-env';
import { createPrivateTopics } from '../../libs/testing/src/kafka-topics';
import { startTestTokenIssuer } from '../../libs/testing/src/token-issuer';
import { loadAverage, log, processMemoryMb, realisticLocations, table } from '../location-query/bench-support';

const ROWS = Number(process.env['BENCH_ROWS'] ?? 1_000_000);
const UPDATE_SHARE = Number(process.env['BENCH_UPDATE_SHARE'] ?? 0.1);
const PRODUCE_BATCH = Number(process.env['BENCH_PRODUCE_BATCH'] ?? 3_000);
const PRODUCERS = Number(process.env['BENCH_PRODUCERS'] ?? 4);
/** Locations acknowledged on the topic and not updated yet, from which updates are drawn; bounded to bound memory. */
const UPDATABLE_POOL = 10_000;
const SAMPLE_MS = 200;
/** The replays' heap cap, as a deployment sets it to fit its memory limit (as bench:import and bench:export do). */
const SERVICE_NODE_OPTIONS = process.env['BENCH_SERVICE_NODE_OPTIONS'] ?? '--max-old-space-size=192';
const exec = promisify(execFile);
const dist = (service: string, file: string) =>
  join(REPO_ROOT, `dist/services/${service}/services/${service}/src/${file}`);
const thousands = (value: number) => Math.round(value).toLocaleString('en-US');

/** What one replay measured, and what it left on disk. */
export interface ReplayResult {
  service: string;
  wallSeconds: number;
  rebuildSeconds: number;
  /** Of rebuildSeconds, the bulk phase's completion (statistics-projection: its counters and rollups from the facts). */
  completingSeconds?: number;
  eventsPerSecond: number;
  peakRssMb: number;
  rows: number;
  tableBytes: number;
  indexBytes: number;
}

/** What bench/scale reads from BENCH_RESULT_FILE. */
export interface ReplayBenchResult {
  events: number;
  locations: number;
  produce: { seconds: number; eventsPerSecond: number; valueBytes: number };
  replays: ReplayResult[];
  /** The topic's partitions on the broker's disk; undefined when the broker's data directory was not found. */
  topicBytes: number | undefined;
}

interface Produced {
  locations: number;
  seconds: number;
  valueBytes: number;
}

/**
 * The event stream: mostly creations; with probability UPDATE_SHARE an update of a location drawn from `updatable`
 * (those whose creation is acknowledged), which is then no longer updatable (every update makes version 2).
 */
function* locationEvents(
  count: number,
  updatable: Location[],
): Generator<{ message: OutgoingMessage; created?: Location }> {
  const groups = Array.from({ length: 500 }, () => randomUUID());
  const mdus = Array.from({ length: 20_000 }, () => randomUUID());
  const locations = realisticLocations(count, { groups, mdus });
  let draw = 0;
  for (let n = 0; n < count; n += 1) {
    draw = (Math.imul(draw, 1_664_525) + 1_013_904_223) >>> 0;
    if (updatable.length > 0 && draw / 4_294_967_296 < UPDATE_SHARE) {
      const index = Math.floor(Math.random() * updatable.length);
      const before = updatable[index]!;
      updatable[index] = updatable[updatable.length - 1]!;
      updatable.pop();
      const status = before.fiberAccessDetails?.serviceability?.status === 'ACTIVE' ? 'INACTIVE' : 'ACTIVE';
      const timestamp = new Date(Date.parse(before.updatedAt) + 86_400_000).toISOString();
      const after: Location = {
        ...before,
        updatedAt: timestamp,
        fiberAccessDetails: { ...before.fiberAccessDetails, serviceability: { status } },
      };
      const modifiedFields = { fiberAccessDetails: { serviceability: { status } } };
      yield { message: envelope('LOCATION_UPDATED', after, timestamp, 2, modifiedFields) };
      continue;
    }
    const { value } = locations.next() as IteratorYieldResult<{ body: Location }>;
    const created: Location = { ...value.body, updatedAt: value.body.createdAt };
    yield { message: envelope('LOCATION_CREATED', created, created.createdAt, 1), created };
  }
}

/** As location-command's EventEnvelopeFactory and kafkaHeadersOf make it. */
function envelope(
  type: 'LOCATION_CREATED' | 'LOCATION_UPDATED',
  data: Location,
  timestamp: string,
  version: number,
  modifiedFields?: object,
): OutgoingMessage {
  return {
    key: data.id,
    value: JSON.stringify({
      id: randomUUID(),
      type,
      timestamp,
      source: 'location-command',
      data,
      ...(modifiedFields === undefined ? {} : { modifiedFields }),
    }),
    headers: { [KAFKA_HEADERS.aggregateVersion]: String(version), [KAFKA_HEADERS.correlationId]: randomUUID() },
  };
}

/** Publishes `count` events with PRODUCERS publishes in flight, each batch made while the others are under way. */
async function produce(buses: KafkaEventBus[], count: number): Promise<Produced> {
  const updatable: Location[] = [];
  const events = locationEvents(count, updatable);
  let locations = 0;
  let valueBytes = 0;
  let sent = 0;
  let lastLog = Date.now();
  const started = performance.now();
  const acknowledged = (created: Location[]) => {
    for (const location of created) {
      if (updatable.length < UPDATABLE_POOL) updatable.push(location);
      else updatable[Math.floor(Math.random() * UPDATABLE_POOL)] = location;
    }
  };
  const lane = async (bus: KafkaEventBus) => {
    for (;;) {
      const messages: OutgoingMessage[] = [];
      const created: Location[] = [];
      // next() by hand: a for…of that breaks out would close the generator the other lanes share.
      while (messages.length < PRODUCE_BATCH) {
        const next = events.next();
        if (next.done === true) break;
        messages.push(next.value.message);
        valueBytes += Buffer.byteLength(next.value.message.value);
        if (next.value.created) created.push(next.value.created);
      }
      if (messages.length === 0) return;
      locations += created.length;
      await bus.publish(TOPICS.locationEvents.name, messages);
      acknowledged(created);
      sent += messages.length;
      if (Date.now() - lastLog > 10_000) {
        lastLog = Date.now();
        const seconds = (performance.now() - started) / 1000;
        log(`  ${thousands(sent)} events on the topic, ${thousands(sent / seconds)} events/s`);
      }
    }
  };
  await Promise.all(buses.map(lane));
  return { locations, seconds: (performance.now() - started) / 1000, valueBytes };
}

/** Runs a service's `replay` command to its end, sampling its memory meanwhile. */
async function replay(
  service: string,
  env: NodeJS.ProcessEnv,
): Promise<Omit<ReplayResult, 'rows' | 'tableBytes' | 'indexBytes'>> {
  const started = performance.now();
  const child = spawn(process.execPath, [dist(service, 'cli.js'), 'replay'], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  // Progress lines ("replay: 42% (…)") every percent: shown every tenth percent.
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    for (const line of chunk.split('\n')) {
      if (line === '') continue;
      const percent = /^replay: (\d+)%/.exec(line)?.[1];
      if (percent === undefined || Number(percent) % 10 === 0) process.stderr.write(`  ${service}: ${line}\n`);
    }
  });
  const exited = once(child, 'exit') as Promise<[number | null]>;
  let peakRssMb = 0;
  const sampler = setInterval(() => {
    processMemoryMb(child.pid!).then(
      // A process exiting has no VmHWM line any more (NaN): the samples before it count.
      (memory) => (peakRssMb = Number.isFinite(memory.peak) ? Math.max(peakRssMb, memory.peak) : peakRssMb),
      () => undefined,
    );
  }, SAMPLE_MS);
  const [code] = await exited;
  clearInterval(sampler);
  const wallSeconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`${service} replay exited with ${code}`);
  const answer = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as {
    replayed?: boolean;
    seconds?: number;
    completingSeconds?: number;
  };
  if (answer.replayed !== true || answer.seconds === undefined) {
    throw new Error(`${service} replay answered ${stdout}`);
  }
  return {
    service,
    wallSeconds,
    rebuildSeconds: answer.seconds,
    completingSeconds: answer.completingSeconds,
    eventsPerSecond: ROWS / answer.seconds,
    peakRssMb,
  };
}

/** Heap (with TOAST) and index bytes of every table of `schema`. */
async function schemaBytes(db: Client, schema: string): Promise<{ tableBytes: number; indexBytes: number }> {
  const { rows } = await db.query<{ table_bytes: string; index_bytes: string }>(
    `SELECT coalesce(sum(pg_table_size(c.oid)), 0) AS table_bytes, coalesce(sum(pg_indexes_size(c.oid)), 0) AS index_bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')`,
    [schema],
  );
  return { tableBytes: Number(rows[0]!.table_bytes), indexBytes: Number(rows[0]!.index_bytes) };
}

/** Allocated bytes of the topic's partition directories under the broker's data directories; undefined if none. */
async function topicBytes(topic: string): Promise<number | undefined> {
  const configured = process.env['BENCH_KAFKA_DATA_DIR'];
  const dirs = configured
    ? configured.split(',')
    : [join(process.env['LX_STATE_DIR'] ?? join(REPO_ROOT, '.infra'), 'kafka', 'data')];
  const partitions: string[] = [];
  for (const dir of dirs.filter((each) => existsSync(each))) {
    for (const name of await readdir(dir)) {
      if (name.startsWith(`${topic}-`) && /^\d+$/.test(name.slice(topic.length + 1))) partitions.push(join(dir, name));
    }
  }
  if (partitions.length === 0) return undefined;
  const { stdout } = await exec('du', ['-s', '-B1', '--', ...partitions]);
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .reduce((sum, line) => sum + Number(line.split('\t')[0]), 0);
}

async function main(): Promise<void> {
  if (!Number.isInteger(ROWS) || ROWS < 1) throw new Error('BENCH_ROWS must be a positive integer');
  if (!(UPDATE_SHARE >= 0 && UPDATE_SHARE < 1)) throw new Error('BENCH_UPDATE_SHARE must be in [0, 1)');
  loadInfraEnv();
  const databaseUrl = requireEnv('DATABASE_URL');
  const brokers = requireEnv('KAFKA_BROKERS').split(',');
  const suffix = Date.now().toString(36);
  const keep = process.env['BENCH_KEEP'] === '1';
  const topics = await createPrivateTopics(brokers, 'lxbench');
  const issuer = await startTestTokenIssuer();
  const buses = Array.from(
    { length: PRODUCERS },
    (_, index) => new KafkaEventBus(topics.kafka(`bench-sc-${suffix}-${index}`)),
  );
  const db = new Client({ connectionString: databaseUrl });
  const schemas: string[] = [];
  try {
    await db.connect();
    log(`${await loadAverage()}; producing ${thousands(ROWS)} location events to ${topics.topicPrefix}`);
    const produced = await produce(buses, ROWS);
    await Promise.all(buses.map((bus) => bus.close()));
    const produce_ = {
      seconds: produced.seconds,
      eventsPerSecond: ROWS / produced.seconds,
      valueBytes: produced.valueBytes,
    };
    log(
      `produced in ${produced.seconds.toFixed(1)} s: ${thousands(produce_.eventsPerSecond)} events/s, ` +
        `${(produced.valueBytes / 1e6 / produced.seconds).toFixed(1)} MB/s of values; ` +
        `${thousands(produced.locations)} locations`,
    );

    const replays: ReplayResult[] = [];
    for (const [service, short, counted] of [
      ['location-query', 'lq', 'locations'],
      ['statistics-projection', 'sp', 'location_facts'],
    ] as const) {
      const schema = `bench_sc_${short}_${suffix}`;
      schemas.push(schema);
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        ...issuer.env,
        ...topics.env,
        DATABASE_SCHEMA: schema,
        PROJECTION_GROUP_ID: `bench-sc-${short}-${suffix}`,
        LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
        NODE_OPTIONS: SERVICE_NODE_OPTIONS,
      };
      log(`${await loadAverage()}; replaying ${service} into ${schema}`);
      const measured = await replay(service, env);
      const { rows } = await db.query<{ count: string }>(`SELECT count(*) FROM ${schema}.${counted}`);
      const count = Number(rows[0]!.count);
      if (count !== produced.locations) {
        throw new Error(`${schema}.${counted} holds ${count} rows after the replay, expected ${produced.locations}`);
      }
      const bytes = await schemaBytes(db, schema);
      const result = { ...measured, rows: count, ...bytes };
      replays.push(result);
      log(
        `  ${result.rebuildSeconds.toFixed(1)} s (${result.wallSeconds.toFixed(1)} s with start and migrations), ` +
          `${thousands(result.eventsPerSecond)} events/s, peak RSS ${result.peakRssMb.toFixed(0)} MB; schema ` +
          `${(bytes.tableBytes / 1e6).toFixed(0)} MB tables + ${(bytes.indexBytes / 1e6).toFixed(0)} MB indexes`,
      );
      if (!keep) await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
    const topicOnDisk = await topicBytes(`${topics.topicPrefix}.${TOPICS.locationEvents.name}`);
    const load = await loadAverage();

    const mb = (bytes: number) => (bytes / 1e6).toFixed(0);
    process.stdout.write(
      `\nReplay of ${thousands(ROWS)} location events (${thousands(produced.locations)} locations, ` +
        `${thousands(ROWS - produced.locations)} updates); services from dist/ with NODE_OPTIONS=` +
        `${SERVICE_NODE_OPTIONS || '(none)'}, LOG_LEVEL warn, default PROJECTION_BATCH_SIZE and ` +
        `PROJECTION_CONCURRENCY; ${load}\n\n`,
    );
    process.stdout.write(
      `${table(
        ['step', 'seconds', 'events/s', 'peak RSS MB', 'disk MB (tables + indexes)', 'bytes per location'],
        [
          [
            `produce (${PRODUCERS} producers, ${thousands(PRODUCE_BATCH)} events per send)`,
            produced.seconds.toFixed(1),
            thousands(produce_.eventsPerSecond),
            '',
            topicOnDisk === undefined ? 'topic: n/a (BENCH_KAFKA_DATA_DIR)' : `topic: ${mb(topicOnDisk)}`,
            topicOnDisk === undefined ? '' : thousands(topicOnDisk / ROWS),
          ],
          ...replays.map((result) => [
            `replay ${result.service} (wall ${result.wallSeconds.toFixed(1)} s${
              result.completingSeconds === undefined
                ? ''
                : `; of which completing ${result.completingSeconds.toFixed(1)} s`
            })`,
            result.rebuildSeconds.toFixed(1),
            thousands(result.eventsPerSecond),
            result.peakRssMb.toFixed(0),
            `${mb(result.tableBytes + result.indexBytes)} (${mb(result.tableBytes)} + ${mb(result.indexBytes)})`,
            thousands((result.tableBytes + result.indexBytes) / result.rows),
          ]),
        ],
      )}\n`,
    );
    const resultFile = process.env['BENCH_RESULT_FILE'];
    if (resultFile) {
      const result: ReplayBenchResult = {
        events: ROWS,
        locations: produced.locations,
        produce: produce_,
        replays,
        topicBytes: topicOnDisk,
      };
      await writeFile(resultFile, JSON.stringify(result));
    }
  } finally {
    await Promise.all(buses.map((bus) => bus.close().catch(() => undefined)));
    if (!keep) {
      for (const schema of schemas) await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    } else log(`kept: schemas ${schemas.join(', ')}; topics under ${topics.topicPrefix}`);
    await db.end().catch(() => undefined);
    await issuer.close();
    if (!keep) await topics.remove();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
