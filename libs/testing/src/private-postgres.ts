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

/**
 * A PostgreSQL cluster of the test's own, which the test may stop and start (deploy/local/postgres.sh): `url` logs in
 * as the superuser (no password); any other role needs its password and TLS with the cluster's CA, `caFile`.
 */
export interface PrivatePostgres {
  url: string;
  caFile: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'lx-pg-'));
  const port = await freePort();
  // On loopback whatever the run's LX_BIND_ADDRESS (the cluster test binds its infrastructure to the pods' gateway).
  const env = {
    ...process.env,
    LX_BIND_ADDRESS: '127.0.0.1',
    LX_PG_DIR: dir,
    LX_PG_PORT: String(port),
    LX_PG_DATABASE: 'lx_test',
  };
  const script = join(REPO_ROOT, 'deploy', 'local', 'postgres.sh');
  const pg = (command: 'start' | 'stop') => run('bash', [script, command], { env }).then(() => undefined);
  await pg('start');
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/lx_test`,
    caFile: join(dir, 'tls', 'ca.crt'),
    start: () => pg('start'),
    stop: () => pg('stop'),
    destroy: async () => {
      await pg('stop').catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** `url` (a superuser's) with another role's user and password: that role's own login on the same database. */
export function loginUrl(url: string, role: string, password: string): string {
  const login = new URL(url);
  login.username = encodeURIComponent(role);
  login.password = encodeURIComponent(password);
  return login.toString();
}

/** The settings with which a service verifies a cluster of deploy/local/postgres.sh (its CA in `caFile`). */
export function verifyFullEnv(caFile: string): { DATABASE_SSL_MODE: 'verify-full'; DATABASE_SSL_CA_FILE: string } {
  return { DATABASE_SSL_MODE: 'verify-full', DATABASE_SSL_CA_FILE: caFile };
}
