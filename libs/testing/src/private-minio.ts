import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './infra-env';
import { freePort } from './private-postgres';

const run = promisify(execFile);

/**
 * A MinIO server of the test's own (deploy/local/minio.sh, the cached binaries), which the test may stop and start,
 * set up as the shared one is: its bucket, and export-worker's user limited to that bucket.
 */
export interface PrivateMinio {
  /** MINIO_ENDPOINT_URL, MINIO_BUCKET, and export-worker's MINIO_ACCESS_KEY and MINIO_SECRET_KEY of it. */
  env: {
    MINIO_ENDPOINT_URL: string;
    MINIO_BUCKET: string;
    MINIO_ACCESS_KEY: string;
    MINIO_SECRET_KEY: string;
  };
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startPrivateMinio(): Promise<PrivateMinio> {
  const dir = await mkdtemp(join(tmpdir(), 'lx-minio-'));
  const [port, consolePort] = [await freePort(), await freePort()];
  const worker = { MINIO_ACCESS_KEY: 'lxtest-export-worker', MINIO_SECRET_KEY: 'lxtest-export-worker-secret' };
  const bucket = process.env.MINIO_BUCKET ?? 'location-exports';
  const env = {
    ...process.env,
    LX_STATE_DIR: dir,
    LX_MINIO_PORT: String(port),
    LX_MINIO_CONSOLE_PORT: String(consolePort),
    LX_MINIO_ACCESS_KEY: 'lxtest',
    LX_MINIO_SECRET_KEY: 'lxtest-secret',
    LX_MINIO_EXPORT_WORKER_ACCESS_KEY: worker.MINIO_ACCESS_KEY,
    LX_MINIO_EXPORT_WORKER_SECRET_KEY: worker.MINIO_SECRET_KEY,
    LX_MINIO_BUCKET: bucket,
  };
  const script = join(REPO_ROOT, 'deploy', 'local', 'minio.sh');
  const minio = (command: 'start' | 'stop') => run('bash', [script, command], { env }).then(() => undefined);
  await minio('start');
  return {
    env: { MINIO_ENDPOINT_URL: `http://127.0.0.1:${port}`, MINIO_BUCKET: bucket, ...worker },
    start: () => minio('start'),
    stop: () => minio('stop'),
    destroy: async () => {
      await minio('stop').catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
