import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { REPO_ROOT } from '../../libs/testing/src/infra-env';
import { freePort } from '../../libs/testing/src/private-postgres';
import { waitFor } from '../../libs/testing/src/wait-for';

export function log(message: string): void {
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** A process serving HTTP on loopback, stopped at the end of the benchmark. */
export interface Server {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `args` (a node script) with `env` plus HTTP_PORT, and waits until `readyPath` answers 200. */
export async function startServer(args: string[], env: NodeJS.ProcessEnv, readyPath: string): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...env, HTTP_PORT: String(port), HTTP_HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
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
): Promise<void> {
  const psql = spawn(
    process.env['PSQL'] ?? 'psql',
    [databaseUrl, '-v', 'ON_ERROR_STOP=1', '-q', '-c', `\\copy ${table} (${columns.join(', ')}) FROM STDIN`],
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

/** A value in COPY text format: backslash, tab and newline escaped; null as \N. */
export function copyValue(value: string | number | boolean | null): string {
  if (value === null) return '\\N';
  return String(value).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');
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

/** The machine's load while measuring, so a reader can tell a quiet run from a contended one. */
export async function loadAverage(): Promise<string> {
  const { loadavg, cpus } = await import('node:os');
  return `load average ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')} on ${cpus().length} cores`;
}
