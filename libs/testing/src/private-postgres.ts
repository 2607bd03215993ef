import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './infra-env';

const run = promisify(execFile);

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** A PostgreSQL cluster of the test's own, which the test may stop and start (deploy/local/postgres.sh). */
export interface PrivatePostgres {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'lx-pg-'));
  const port = await freePort();
  const env = { ...process.env, LX_PG_DIR: dir, LX_PG_PORT: String(port), LX_PG_DATABASE: 'lx_test' };
  const script = join(REPO_ROOT, 'deploy', 'local', 'postgres.sh');
  const pg = (command: 'start' | 'stop') => run('bash', [script, command], { env }).then(() => undefined);
  await pg('start');
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/lx_test`,
    start: () => pg('start'),
    stop: () => pg('stop'),
    destroy: async () => {
      await pg('stop').catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
