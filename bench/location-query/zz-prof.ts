import { join } from 'node:path';
import { Client } from 'pg';
import { loadInfraEnv, REPO_ROOT } from '../../libs/testing/src/infra-env';
import { startTestTokenIssuer } from '../../libs/testing/src/token-issuer';
import { measure, startServer } from './bench-support';
async function main() {
  loadInfraEnv();
  const schema = process.argv[2]!;
  const issuer = await startTestTokenIssuer();
  const db = new Client({ connectionString: process.env['DATABASE_URL'], options: `-c search_path=${schema}` });
  await db.connect();
  const ids = (await db.query('SELECT id FROM locations LIMIT 20000')).rows.map((r) => r.id as string);
  await db.end();
  const env = {
    ...process.env,
    ...issuer.env,
    DATABASE_SCHEMA: schema,
    PROJECTION_GROUP_ID: schema.replace(/_/g, '-'),
    LOG_LEVEL: 'warn',
  };
  const service = await startServer(
    ['--prof', join(REPO_ROOT, 'dist/services/location-query/services/location-query/src/main.js')],
    env,
    '/health/ready',
  );
  const token = await issuer.token({ scopes: ['locations:read'] });
  let i = 0;
  const path = () => `/locations/${ids[(i = (i + 1) % ids.length)]}`;
  await measure({ url: service.url, connections: 64, seconds: 5, path, headers: { authorization: `Bearer ${token}` } });
  const m = await measure({
    url: service.url,
    connections: 64,
    seconds: 10,
    path,
    headers: { authorization: `Bearer ${token}` },
  });
  console.log(m);
  await service.stop();
  await issuer.close();
}
void main();
