/**
 * The scale benchmark (issue 28): the read side, exports and replays at BENCH_SCALE_ROWS (default 10,000,000), and
 * the same at BENCH_SCALE_SMALL_ROWS (default 1,000,000) where a step runs at both, to tell what grows faster than
 * linearly. It runs the existing benchmarks one after the other, each cleaning up its data before the next starts
 * (a 10M read model is about 15 GB, 10M events on a topic about 9 GB: two of them at once would not fit the disk),
 * and prints one combined table at the end.
 *
 *   npm run bench:scale     (bash bench/scale/run.sh: builds the services, then runs this file)
 *
 * Steps (BENCH_SCALE_STEPS, comma-separated, default all four, in this order):
 *  - statistics: bench/statistics/run.sh at SMALL and at SCALE rows; the unfiltered query and the worst combination
 *    (highest service p99), p50/p99. Read from BENCH_RESULT_FILE when the benchmark writes it, else from its table.
 *  - get-location: bench/location-query/run.sh at SCALE rows; location-query beside the bare prepared-statement
 *    baseline (its BENCH_RESULT_FILE).
 *  - export: bench/export/run.sh with BENCH_ROWS=SCALE and BENCH_SMALL_ROWS=SMALL (a full export of SCALE rows, a
 *    filtered one of SMALL rows, each size with fresh processes); seconds, rows/s and peak RSS of export-worker and
 *    location-query, read from its first table.
 *  - replay: bench/scale/replay-bench.ts at SMALL and at SCALE events (produce rate, rebuild of location-query and of
 *    statistics-projection by their `replay` commands, disk of each schema and of the topic).
 * Every other BENCH_* setting (BENCH_SECONDS, BENCH_ROUNDS, BENCH_UPDATE_SHARE, …) reaches the steps as it is;
 * BENCH_KEEP is cleared for them, since kept data would fill the disk. While each step runs, the free space of the
 * file systems holding the infrastructure's state (LX_STATE_DIR) and the temporary directory is sampled every 2 s:
 * the table reports each step's peak disk use (free space at its start minus the lowest seen). Before each step it
 * waits (BENCH_SCALE_DISK_WAIT_SECONDS, default 600) for the free space to come back to what it was before the
 * previous step, less 1 GB: Kafka and MinIO free deleted data with a delay.
 *
 * Growth: for each measurement taken at both sizes, the per-row cost at SCALE over the per-row cost at SMALL (seconds
 * and bytes over rows; for a rate, its inverse; for a latency, latency over rows). Above GROWTH_LIMIT it is reported
 * as growing faster than linearly. Peak RSS is expected flat instead: reported if it grows by more than 10 % + 10 MB,
 * and checked against the 200 MB target.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../libs/testing/src/infra-env';
import { loadAverage, log, table } from '../location-query/bench-support';
import type { ReplayBenchResult } from './replay-bench';
import { exportRows, statisticsSummary } from './scale-results';

const SCALE = Number(process.env['BENCH_SCALE_ROWS'] ?? 10_000_000);
const SMALL = Number(process.env['BENCH_SCALE_SMALL_ROWS'] ?? 1_000_000);
const STEPS = (process.env['BENCH_SCALE_STEPS'] ?? 'statistics,get-location,export,replay').split(',');
const KNOWN_STEPS = ['statistics', 'get-location', 'export', 'replay'];
/** Per-row cost at SCALE over that at SMALL above which a measurement grows faster than linearly (noise allowed). */
const GROWTH_LIMIT = 1.25;
/** The memory target of the exports (issue 28): under 200 MB, and flat from SMALL to SCALE. */
const RSS_LIMIT_MB = 200;
const DISK_SAMPLE_MS = 2_000;
/** A latency's growth beyond linear smaller than this is not reported (see fasterThanLinear). */
const LATENCY_NOISE_MS = 5;
/** Longest wait, before a step, for the previous step's data to leave the disk (see untilDiskFreed). */
const DISK_WAIT_MS = Number(process.env['BENCH_SCALE_DISK_WAIT_SECONDS'] ?? 600) * 1000;
/** What a step may leave on the disk for good (WAL segments kept, logs). */
const DISK_SLACK_BYTES = 1e9;
const thousands = (value: number) => Math.round(value).toLocaleString('en-US');
const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const gb = (bytes: number) => `${(bytes / 1e9).toFixed(2)} GB`;

/** How a measurement is expected to scale with the rows. */
type Kind = 'total' | 'rate' | 'latency' | 'memory';

interface Row {
  step: string;
  measurement: string;
  kind: Kind;
  small?: number;
  scale?: number;
  unit: string;
  /** A ceiling the value must stay under (the exports' peak RSS). */
  limit?: number;
}

/** Free bytes of the file systems holding `paths`, sampled until stopped; the peak use is start minus the lowest. */
/** Where the steps' data lands: the infrastructure's state (Postgres, Kafka, MinIO) and the temporary directory. */
const DATA_PATHS = [process.env['LX_STATE_DIR'] ?? join(REPO_ROOT, '.infra'), tmpdir()].filter(existsSync);

/** Free bytes of the file systems holding DATA_PATHS. */
async function freeBytes(): Promise<number> {
  const seen = new Map<number, number>();
  for (const path of DATA_PATHS) {
    const stats = await statfs(path);
    // One entry per file system (its size and block count tell them apart well enough for a report).
    seen.set(stats.blocks * stats.bsize, stats.bavail * stats.bsize);
  }
  return [...seen.values()].reduce((sum, value) => sum + value, 0);
}

/**
 * Waits until the free space is back to `target` (what it was before the previous step, less a little), at most
 * DISK_WAIT_MS: a dropped schema frees its space at once, but Kafka deletes a topic's files a minute after the topic
 * (file.delete.delay.ms) and MinIO empties its trash of removed objects minutes later, while the next step may need
 * as much again. On a machine shared with other work the target may never come back; the wait is bounded.
 */
async function untilDiskFreed(target: number): Promise<void> {
  const deadline = Date.now() + DISK_WAIT_MS;
  let free = await freeBytes();
  if (free >= target) return;
  log(`waiting for the last step's data to leave the disk: ${gb(free)} free, ${gb(target)} before it`);
  while (free < target && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    free = await freeBytes();
  }
  log(`${gb(free)} free${free < target ? ` (gave up waiting after ${DISK_WAIT_MS / 1000} s)` : ''}`);
}

function diskSampler() {
  const free = freeBytes;
  let lowest = Infinity;
  let start = NaN;
  let timer: NodeJS.Timeout | undefined;
  return {
    async start() {
      start = await free();
      lowest = start;
      timer = setInterval(() => {
        free().then(
          (value) => (lowest = Math.min(lowest, value)),
          () => undefined,
        );
      }, DISK_SAMPLE_MS);
    },
    async stop(): Promise<{ freeAtStart: number; peakUse: number }> {
      clearInterval(timer);
      lowest = Math.min(lowest, await free());
      return { freeAtStart: start, peakUse: start - lowest };
    },
  };
}

interface StepRun {
  stdout: string;
  result: unknown;
  seconds: number;
  peakDisk: number;
  freeAtStart: number;
}

const stepLog: { step: string; rows: number; seconds: number; peakDisk: number; freeAtStart: number }[] = [];

/**
 * Runs one benchmark (`args` after node or bash) with BENCH_ROWS=`rows` and `extra`; its stdout is passed through
 * and kept, its BENCH_RESULT_FILE read if written.
 */
async function runStep(step: string, rows: number, command: string[], extra: NodeJS.ProcessEnv = {}): Promise<StepRun> {
  const dir = await mkdtemp(join(tmpdir(), 'lx-scale-'));
  const resultFile = join(dir, 'result.json');
  const previous = stepLog.at(-1);
  if (previous !== undefined) await untilDiskFreed(previous.freeAtStart - DISK_SLACK_BYTES);
  const disk = diskSampler();
  await disk.start();
  log(`${step} at ${thousands(rows)} rows: ${command.join(' ')} (${await loadAverage()})`);
  const started = performance.now();
  const child = spawn(command[0]!, command.slice(1), {
    cwd: REPO_ROOT,
    env: { ...process.env, BENCH_ROWS: String(rows), BENCH_RESULT_FILE: resultFile, BENCH_KEEP: '', ...extra },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    process.stdout.write(chunk);
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  const seconds = (performance.now() - started) / 1000;
  const { freeAtStart, peakDisk } = await disk
    .stop()
    .then(({ freeAtStart, peakUse }) => ({ freeAtStart, peakDisk: peakUse }));
  const text = await readFile(resultFile, 'utf8').catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
  stepLog.push({ step, rows, seconds, peakDisk, freeAtStart });
  if (code !== 0) throw new Error(`${step} at ${thousands(rows)} rows exited with ${code}`);
  log(`${step} at ${thousands(rows)} rows took ${fixed(seconds / 60)} min; peak disk use ${gb(peakDisk)}`);
  return {
    stdout,
    result: text === undefined ? undefined : (JSON.parse(text) as unknown),
    seconds,
    peakDisk,
    freeAtStart,
  };
}

const NODE_SWC = [process.execPath, '-r', join(REPO_ROOT, 'libs/testing/register-swc.js')];

async function statisticsStep(rows: Row[]): Promise<void> {
  const bySize = new Map<number, ReturnType<typeof statisticsSummary>>();
  for (const size of [SMALL, SCALE]) {
    // Above a few million facts each naive GROUP BY takes seconds: its answers are compared, its latency not timed.
    const naive = size > 2_000_000 ? { BENCH_NAIVE: 'check' } : {};
    const run = await runStep('statistics', size, ['bash', 'bench/statistics/run.sh'], naive);
    bySize.set(size, statisticsSummary(run.stdout, run.result));
  }
  const small = bySize.get(SMALL)!;
  const scale = bySize.get(SCALE)!;
  for (const key of ['unfiltered', 'worst'] as const) {
    const name =
      key === 'unfiltered'
        ? 'unfiltered'
        : `highest p99: ${scale[key].label}${small[key].label === scale[key].label ? '' : ` (at ${thousands(SMALL)}: ${small[key].label})`}`;
    for (const percentile of ['p50', 'p99'] as const) {
      rows.push({
        step: 'statistics',
        measurement: `${name}, ${percentile}`,
        kind: 'latency',
        small: small[key][percentile],
        scale: scale[key][percentile],
        unit: 'ms',
      });
    }
  }
}

interface GetLocationResult {
  service: { requestsPerSecond: number; p50: number; p99: number };
  preparedBaseline: { requestsPerSecond: number; p50: number; p99: number };
}

async function getLocationStep(rows: Row[]): Promise<void> {
  const run = await runStep('get-location', SCALE, ['bash', 'bench/location-query/run.sh']);
  const result = run.result as GetLocationResult | undefined;
  if (result?.service === undefined) throw new Error('the get-location benchmark wrote no BENCH_RESULT_FILE');
  for (const [label, target] of [
    ['location-query', result.service],
    ['bare prepared-statement baseline', result.preparedBaseline],
  ] as const) {
    rows.push(
      {
        step: 'GET /locations/{id}',
        measurement: `${label}, req/s`,
        kind: 'rate',
        scale: target.requestsPerSecond,
        unit: 'req/s',
      },
      { step: 'GET /locations/{id}', measurement: `${label}, p50`, kind: 'latency', scale: target.p50, unit: 'ms' },
      { step: 'GET /locations/{id}', measurement: `${label}, p99`, kind: 'latency', scale: target.p99, unit: 'ms' },
    );
  }
}

async function exportStep(rows: Row[]): Promise<void> {
  const run = await runStep('export', SCALE, ['bash', 'bench/export/run.sh'], { BENCH_SMALL_ROWS: String(SMALL) });
  const exports = exportRows(run.stdout);
  for (const format of [...new Set(exports.map((each) => each.format))]) {
    const at = (size: number) => exports.find((each) => each.format === format && each.rows === size);
    const small = at(SMALL);
    const scale = at(SCALE);
    const step = `export ${format} (${thousands(SMALL)}: filtered; ${thousands(SCALE)}: full)`;
    rows.push(
      { step, measurement: 'seconds', kind: 'total', small: small?.seconds, scale: scale?.seconds, unit: 's' },
      {
        step,
        measurement: 'rows/s',
        kind: 'rate',
        small: small?.rowsPerSecond,
        scale: scale?.rowsPerSecond,
        unit: 'rows/s',
      },
      {
        step,
        measurement: 'export-worker peak RSS',
        kind: 'memory',
        small: small?.workerPeakMb,
        scale: scale?.workerPeakMb,
        unit: 'MB',
        limit: RSS_LIMIT_MB,
      },
      {
        step,
        measurement: 'location-query peak RSS',
        kind: 'memory',
        small: small?.queryPeakMb,
        scale: scale?.queryPeakMb,
        unit: 'MB',
        limit: RSS_LIMIT_MB,
      },
    );
  }
}

async function replayStep(rows: Row[]): Promise<void> {
  const bySize = new Map<number, ReplayBenchResult>();
  for (const size of [SMALL, SCALE]) {
    const run = await runStep('replay', size, [...NODE_SWC, 'bench/scale/replay-bench.ts']);
    const result = run.result as ReplayBenchResult | undefined;
    if (result?.replays === undefined) throw new Error('the replay benchmark wrote no BENCH_RESULT_FILE');
    bySize.set(size, result);
  }
  const small = bySize.get(SMALL)!;
  const scale = bySize.get(SCALE)!;
  rows.push(
    {
      step: 'produce to the topic',
      measurement: 'events/s',
      kind: 'rate',
      small: small.produce.eventsPerSecond,
      scale: scale.produce.eventsPerSecond,
      unit: 'events/s',
    },
    {
      step: 'produce to the topic',
      measurement: 'topic on disk',
      kind: 'total',
      small: small.topicBytes,
      scale: scale.topicBytes,
      unit: 'bytes',
    },
  );
  for (const service of scale.replays.map((each) => each.service)) {
    const a = small.replays.find((each) => each.service === service);
    const b = scale.replays.find((each) => each.service === service)!;
    const step = `replay ${service}`;
    rows.push(
      {
        step,
        measurement: 'rebuild seconds',
        kind: 'total',
        small: a?.rebuildSeconds,
        scale: b.rebuildSeconds,
        unit: 's',
      },
      {
        step,
        measurement: 'events/s',
        kind: 'rate',
        small: a?.eventsPerSecond,
        scale: b.eventsPerSecond,
        unit: 'events/s',
      },
      { step, measurement: 'peak RSS', kind: 'memory', small: a?.peakRssMb, scale: b.peakRssMb, unit: 'MB' },
      { step, measurement: 'schema tables', kind: 'total', small: a?.tableBytes, scale: b.tableBytes, unit: 'bytes' },
      { step, measurement: 'schema indexes', kind: 'total', small: a?.indexBytes, scale: b.indexBytes, unit: 'bytes' },
    );
  }
}

/**
 * Whether the per-row cost grew beyond GROWTH_LIMIT; for a latency also by more than LATENCY_NOISE_MS, since
 * autocannon reports whole milliseconds and a shared machine moves a 1 ms lookup to 10 ms now and then.
 */
function fasterThanLinear(row: Row): boolean {
  if (!(perRowGrowth(row) > GROWTH_LIMIT)) return false;
  return row.kind !== 'latency' || row.scale! - (row.small! * SCALE) / SMALL > LATENCY_NOISE_MS;
}

/** Per-row cost at SCALE over that at SMALL (NaN for memory, which is judged apart, or a missing size). */
function perRowGrowth(row: Row): number {
  const { small, scale } = row;
  if (small === undefined || scale === undefined || row.kind === 'memory') return NaN;
  if (row.kind === 'rate') return small / scale;
  return scale / SCALE / (small / SMALL);
}

function verdict(row: Row): string {
  if (row.scale === undefined) return 'n/a';
  if (row.kind === 'memory') {
    const limit =
      row.limit === undefined ? [] : [row.scale < row.limit ? `under ${row.limit}` : `NOT under ${row.limit}`];
    const growth = row.small === undefined ? [] : [row.scale <= row.small * 1.1 + 10 ? 'flat' : 'GROWS'];
    return [...limit, ...growth].join('; ');
  }
  if (!Number.isFinite(perRowGrowth(row))) return '';
  if (fasterThanLinear(row)) return 'FASTER THAN LINEAR';
  if (row.kind === 'rate') return 'steady';
  const ratio = row.scale / row.small!;
  if (ratio >= (SCALE / SMALL) * 0.8) return 'linear';
  return ratio > 1.5 ? 'sublinear' : 'flat';
}

function shown(value: number | undefined, unit: string): string {
  if (value === undefined || !Number.isFinite(value)) return '—';
  if (unit === 'bytes') return gb(value);
  if (unit === 'ms' || unit === 's' || unit === 'MB') return `${fixed(value, unit === 'MB' ? 0 : 1)} ${unit}`;
  return `${thousands(value)} ${unit}`;
}

async function main(): Promise<void> {
  if (!Number.isInteger(SCALE) || SCALE < 1) throw new Error('BENCH_SCALE_ROWS must be a positive integer');
  if (!Number.isInteger(SMALL) || SMALL < 1 || SMALL > SCALE) {
    throw new Error('BENCH_SCALE_SMALL_ROWS must be a positive integer no larger than BENCH_SCALE_ROWS');
  }
  const unknown = STEPS.filter((step) => !KNOWN_STEPS.includes(step));
  if (unknown.length > 0) throw new Error(`BENCH_SCALE_STEPS names unknown steps: ${unknown.join(', ')}`);
  const started = performance.now();
  const loadBefore = await loadAverage();
  const rows: Row[] = [];
  const failures: string[] = [];
  const steps: [string, (rows: Row[]) => Promise<void>][] = [
    ['statistics', statisticsStep],
    ['get-location', getLocationStep],
    ['export', exportStep],
    ['replay', replayStep],
  ];
  for (const [name, step] of steps) {
    if (!STEPS.includes(name)) continue;
    // A failed step is reported and the others still run: a 10M run takes hours, and each step stands alone.
    await step(rows).catch((error: unknown) => {
      failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
      log(`${name} FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    });
  }
  const minutes = (performance.now() - started) / 60_000;
  // A measurement a step could not take is null in its JSON (NaN serialised) or NaN from its table: left out.
  const finite = (value: number | undefined) =>
    typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  for (const row of rows) Object.assign(row, { small: finite(row.small), scale: finite(row.scale) });

  process.stdout.write(
    `\nScale benchmark: ${thousands(SMALL)} and ${thousands(SCALE)} rows; ${fixed(minutes)} min in all; ` +
      `${loadBefore} before, ${await loadAverage()} after\n\n`,
  );
  process.stdout.write(
    `${table(
      ['step', 'measurement', `at ${thousands(SMALL)}`, `at ${thousands(SCALE)}`, 'per-row cost ×', 'verdict'],
      rows.map((row) => [
        row.step,
        row.measurement,
        shown(row.small, row.unit),
        shown(row.scale, row.unit),
        fixed(perRowGrowth(row), 2).replace('n/a', ''),
        verdict(row),
      ]),
    )}\n\n`,
  );
  process.stdout.write(
    `${table(
      ['step run', 'rows', 'minutes', 'free disk at start', 'peak disk use'],
      stepLog.map((entry) => [
        entry.step,
        thousands(entry.rows),
        fixed(entry.seconds / 60),
        gb(entry.freeAtStart),
        gb(entry.peakDisk),
      ]),
    )}\n\n`,
  );
  const faster = rows.filter(fasterThanLinear);
  const growingMemory = rows.filter((row) => verdict(row).includes('GROWS') || verdict(row).includes('NOT under'));
  process.stdout.write(
    `per-row cost × = (value at ${thousands(SCALE)} ÷ rows) ÷ (value at ${thousands(SMALL)} ÷ rows), for a rate its ` +
      `inverse: 1 is linear, below 1 cheaper per row at scale; above ${GROWTH_LIMIT} counts as faster than linear.\n`,
  );
  process.stdout.write(
    faster.length === 0
      ? `Nothing measured at both sizes grows faster than linearly.\n`
      : `Faster than linearly: ${faster.map((row) => `${row.step} ${row.measurement} (×${fixed(perRowGrowth(row), 2)} per row)`).join('; ')}.\n`,
  );
  if (growingMemory.length > 0) {
    process.stdout.write(
      `Memory: ${growingMemory.map((row) => `${row.step} ${row.measurement} ${shown(row.small, 'MB')} → ${shown(row.scale, 'MB')}`).join('; ')}.\n`,
    );
  }
  if (failures.length > 0) {
    process.stdout.write(`FAILED steps: ${failures.join('; ')}\n`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
