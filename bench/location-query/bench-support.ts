import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { type Agent, request } from 'node:http';
import { readFile } from 'node:fs/promises';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { type Location, locationCsvRecord } from '@lx/contracts';
import { REPO_ROOT } from '../../libs/testing/src/infra-env';
import { DIGEST_NODES_BACKFILL } from '../../services/location-query/src/database/migrations/1797292800000-AddReadModelDigest';
import { freePort } from '../../libs/testing/src/private-postgres';
import { waitFor } from '../../libs/testing/src/wait-for';

export function log(message: string): void {
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** A reply as the benchmarks read it. */
export interface Reply {
  status: number;
  etag: string | undefined;
  body: string;
}

/** One HTTP request on `agent` (keep-alive sockets), with a bearer token and a JSON body when given. */
export function call(
  agent: Agent,
  url: string,
  method: string,
  token: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const outgoing = request(
      url,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          ...(payload === undefined
            ? {}
            : { 'content-type': contentType, 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, etag: response.headers.etag, body: text }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

/** A small valid location body for write benchmarks; `label` names the benchmark in its locality. */
export function aWriteBody(label: string, n: number) {
  return {
    geography: { country: 'US', region: 'CO', locality: `${label} ${n % 50}`, postalCode: String(80_000 + (n % 500)) },
    address: { streetNumber: String(n), streetName: 'Main', streetType: 'ST' },
    coordinates: { latitude: 39.7, longitude: -104.9 },
    fiberAccessDetails: { serviceability: { status: 'PLANNED' } },
  };
}

/** A process serving HTTP on loopback, stopped at the end of the benchmark. */
export interface Server {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `args` (a node script) with `env` plus HTTP_PORT, and waits until `readyPath` answers 200. `stdout` is where
 * the process's own output (the services' JSON log lines) goes: discarded unless a file descriptor is given.
 */
export async function startServer(
  args: string[],
  env: NodeJS.ProcessEnv,
  readyPath: string,
  stdout: 'ignore' | number = 'ignore',
): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...env, HTTP_PORT: String(port), HTTP_HOST: '127.0.0.1' },
    stdio: ['ignore', stdout, 'inherit'],
  });
  await waitFor(
    `${args.join(' ')} at ${url}`,
    async () => {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
      return (await fetch(`${url}${readyPath}`)).status === 200;
    },
    120_000,
  );
  return {
    url,
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** Runs a CLI to completion (inheriting stderr). */
export async function run(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`${args.join(' ')} exited with ${code}`);
}

/**
 * COPY rows into a table through psql's \copy (node-postgres has no COPY FROM STDIN): text format, one row per
 * line, columns separated by tabs; `rows` yields the lines.
 */
export async function copyInto(
  databaseUrl: string,
  table: string,
  columns: string[],
  rows: Iterable<string>,
  sessionSettings: readonly string[] = [],
): Promise<void> {
  const settings = sessionSettings.flatMap((statement) => ['-c', statement]);
  const psql = spawn(
    process.env['PSQL'] ?? 'psql',
    [
      databaseUrl,
      '-v',
      'ON_ERROR_STOP=1',
      '-q',
      ...settings,
      '-c',
      `\\copy ${table} (${columns.join(', ')}) FROM STDIN`,
    ],
    {
      stdio: ['pipe', 'ignore', 'inherit'],
    },
  );
  const exited = once(psql, 'exit');
  let buffer = '';
  for (const row of rows) {
    buffer += `${row}\n`;
    if (buffer.length > 1 << 20) {
      if (!psql.stdin.write(buffer)) await once(psql.stdin, 'drain');
      buffer = '';
    }
  }
  psql.stdin.end(buffer);
  const [code] = (await exited) as [number];
  if (code !== 0) throw new Error(`psql \\copy into ${table} exited with ${code}`);
}

/**
 * COPY `rows` (READ_MODEL_COLUMNS lines) into `<schema>.locations` of location-query as its projection writes them:
 * the session marks the digest as kept (`lx.digest`), so the row trigger for the previous release's writers
 * (AddReadModelDigest1797292800000) stays out of the load; then the digest's nodes are computed once from the rows
 * (all of them: the groups' too), with that migration's backfill statement, so the digest stays exact. Through the trigger, a 10,000,000-row COPY spent
 * over 20 minutes after its last row: each row upserts its node's row in the one transaction, whose chain of row
 * versions grows with the load, so each upsert costs more than the last (docs/benchmarks.md, Scale).
 */
export async function copyReadModel(databaseUrl: string, schema: string, rows: Iterable<string>): Promise<void> {
  await copyInto(databaseUrl, `${schema}.locations`, READ_MODEL_COLUMNS, rows, ["SET lx.digest = 'kept'"]);
  const db = new Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
  await db.connect();
  try {
    await db.query('BEGIN');
    await db.query('DELETE FROM digest_nodes');
    await db.query(DIGEST_NODES_BACKFILL);
    await db.query('COMMIT');
  } finally {
    await db.end();
  }
}

/** A value in COPY text format: backslash, tab, newline and carriage return escaped; null as \N. */
export function copyValue(value: string | number | boolean | null): string {
  if (value === null) return '\\N';
  return String(value).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

/** Stores the end of `topics` as `groupId`'s position, so a service started on the schema reads no history. */
export async function positionAtLogEnd(
  db: Client,
  groupId: string,
  ends: readonly { topic: string; partition: number; high: string }[],
): Promise<void> {
  for (const { topic, partition, high } of ends) {
    await db.query(`INSERT INTO consumer_offsets (group_id, topic, partition, next_offset) VALUES ($1, $2, $3, $4)`, [
      groupId,
      topic,
      partition,
      high,
    ]);
  }
}

export interface Measurement {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** autocannon against `url` (in this process: the servers under test are other processes), each request built anew. */
export async function measure(options: {
  url: string;
  connections: number;
  seconds: number;
  path: () => string;
  headers?: Record<string, string>;
}): Promise<Measurement> {
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    headers: options.headers,
    requests: [
      {
        setupRequest: (request) => ({ ...request, path: options.path() }),
      },
    ],
  });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** A Markdown table. */
export function table(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The p-th percentile (nearest rank) of the values; NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The machine's load while measuring, so a reader can tell a quiet run from a contended one. */
export async function loadAverage(): Promise<string> {
  const { loadavg, cpus } = await import('node:os');
  return `load average ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')} on ${cpus().length} cores`;
}

/** Memory of a process from /proc (Linux): resident set now and its lifetime peak (VmHWM), in MiB. */
export async function processMemoryMb(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** A small fast generator; the data only needs to look like production, not to be unpredictable. */
export function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 4_294_967_296;
  };
  return { next, pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]! };
}

const STATUSES = ['PLANNED', 'CONSTRUCTION', 'ACTIVE', 'ACTIVE', 'ACTIVE', 'INACTIVE', 'RETIRED'] as const;
const STREETS = ['Glenarm', 'Main', 'Colfax', 'Broadway', 'Larimer', 'Market', 'Blake', 'Wazee'];
const TYPES = ['ST', 'AVE', 'PL', 'BLVD', 'DRIVE'];

/** The columns of location-query's `locations` table that `readModelRows` fills, in its order. */
export const READ_MODEL_COLUMNS = [
  'id',
  'version',
  'body',
  'csv',
  'location_group_id',
  'address_group_id',
  'updated_at',
];

/** One realistic location: the body location-query serves, and the location group and MDU it is in. */
export interface RealisticLocation {
  body: Location;
  groupId: string | undefined;
  mduId: string | undefined;
}

/**
 * Realistic locations as location-query serves them: address, coordinates, fibre details and custom fields, 70 % in
 * one of `groups`, 15 % in an MDU of `mdus`. With `leadingGroup`, the first `leadingGroup.count` all belong to that
 * group (a group of known size, for filtered reads). The same sequence for the same count and options (a fixed seed).
 */
export function* realisticLocations(
  count: number,
  options: {
    groups: readonly string[];
    mdus: readonly string[];
    leadingGroup?: { id: string; count: number };
  },
): Generator<RealisticLocation> {
  const random = generator(42);
  const start = Date.parse('2023-01-01T00:00:00Z');
  for (let n = 0; n < count; n += 1) {
    const id = randomUUID();
    const created = new Date(start + Math.floor(random.next() * 6e10)).toISOString();
    const updated = new Date(Date.parse(created) + Math.floor(random.next() * 3e9)).toISOString();
    const drawn = random.next() < 0.7 ? random.pick(options.groups) : undefined;
    const grouped = options.leadingGroup && n < options.leadingGroup.count ? options.leadingGroup.id : drawn;
    const mdu = random.next() < 0.15 ? random.pick(options.mdus) : undefined;
    const body: Location = {
      id,
      createdAt: created,
      updatedAt: updated,
      ...(random.next() < 0.2 ? { notes: 'Gate code at the front desk' } : {}),
      ...(grouped ? { locationGroupId: grouped } : {}),
      geography: { country: 'US', region: 'CO', locality: `Town ${n % 2000}`, postalCode: String(80000 + (n % 20000)) },
      address: {
        streetNumber: String(1 + (n % 4000)),
        streetName: random.pick(STREETS),
        streetType: random.pick(TYPES),
        ...(mdu ? { subunitType: 'APT', subunitIdentifier: String(1 + (n % 300)), addressGroupId: mdu } : {}),
      },
      coordinates: { latitude: 39 + random.next(), longitude: -105 + random.next() },
      fiberAccessDetails: {
        circuitId: `CIR-${n}`,
        fdh: `FDH-${n % 500}`,
        layer2AccessProtocol: 'GPON' as const,
        serviceability: { status: random.pick(STATUSES) },
      },
      customFields: { tier: random.pick(['gold', 'silver', 'bronze']), floors: 1 + (n % 12) },
    };
    yield { body, groupId: grouped, mduId: mdu };
  }
}

/**
 * Realistic rows of location-query's read model as COPY text lines (READ_MODEL_COLUMNS): the locations of
 * `realisticLocations`. Every tenth id is pushed to `sample` when given.
 */
export function* readModelRows(
  count: number,
  options: {
    groups: readonly string[];
    mdus: readonly string[];
    sample?: string[];
    leadingGroup?: { id: string; count: number };
  },
): Generator<string> {
  let n = 0;
  for (const { body, groupId, mduId } of realisticLocations(count, options)) {
    if (n % 10 === 0) options.sample?.push(body.id);
    n += 1;
    const row = [
      body.id,
      1,
      JSON.stringify(body),
      locationCsvRecord(body),
      groupId ?? null,
      mduId ?? null,
      body.updatedAt,
    ];
    yield row.map(copyValue).join('\t');
  }
}
