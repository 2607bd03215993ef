import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@lx/platform';
import { REPO_ROOT } from './infra-env';

const run = promisify(execFile);

// Moved to @lx/platform (the embedded profile picks ports too); tests keep importing it from here.
export { freePort } from '@lx/platform';

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
