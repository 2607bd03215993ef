import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { REPO_ROOT } from './infra-env';
import { loginUrl, verifyFullEnv, type PrivatePostgres } from './private-postgres';
import { spawnTs } from './ts-process';

/** A service's own login on a private cluster: its role (named after its schema) and URL. */
export interface ServiceLogin {
  role: string;
  url: string;
}

/**
 * Runs a service's `migrate` entry from its sources in a child process with `env` over the test's own, as the chart's
 * migration Job runs `lx <service> migrate`. A file path, not an import: services never import each other, and a test
 * of one service's isolation needs another's real tables. Resolves with the migrations applied; rejects with the
 * entry's output when it fails.
 */
export async function runMigrateEntry(service: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const child = spawnTs(join(REPO_ROOT, 'services', service, 'src', 'migrate.ts'), {
    ...process.env,
    LOG_LEVEL: 'warn',
    ...env,
  });
  const { code } = await child.exited;
  if (code !== 0) throw new Error(`${service} migrate exited with ${code}:\n${child.output()}`);
  return (JSON.parse(child.output().trim().split('\n').at(-1)!) as { applied: string[] }).applied;
}

/**
 * `migrate` of a service with an administrator's login as DATABASE_ADMIN_URL (the superuser unless `adminUrl` names
 * another): it makes the service's own role (named after its schema, with a password) the owner of the schema and of
 * all in it, then migrates as that role, over verified TLS.
 */
export async function migrateAsOwnRole(
  postgres: PrivatePostgres,
  service: string,
  schema: string,
  env: NodeJS.ProcessEnv = {},
  adminUrl = postgres.url,
): Promise<ServiceLogin & { applied: string[] }> {
  const login = { role: schema, url: loginUrl(postgres.url, schema, `${schema}-password`) };
  const applied = await runMigrateEntry(service, {
    ...verifyFullEnv(postgres.caFile),
    ...env,
    DATABASE_URL: login.url,
    DATABASE_ADMIN_URL: adminUrl,
  });
  return { ...login, applied };
}

/** Runs `work` on a connection of `url`'s login, with TLS verified against the private cluster's CA. */
export async function asLogin<T>(
  postgres: PrivatePostgres,
  url: string,
  work: (db: Client) => Promise<T>,
  tls: 'verify-full' | 'disable' = 'verify-full',
): Promise<T> {
  const db = new Client({
    connectionString: url,
    ssl: tls === 'disable' ? false : { rejectUnauthorized: true, ca: readFileSync(postgres.caFile, 'utf8') },
  });
  await db.connect();
  try {
    return await work(db);
  } finally {
    await db.end();
  }
}
