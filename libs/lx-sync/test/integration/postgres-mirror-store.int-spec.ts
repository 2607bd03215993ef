import { Client } from 'pg';
import { requireEnv, uniqueSuffix } from '@lx/testing';
import { openMirrorStore } from '../../src/store/open-mirror-store';
import { describeMirrorStore } from '../mirror-store.contract';

// A database of its own on the test PostgreSQL, dropped afterwards: the mirror's tables live in `public`.
const database = `lx_sync_${uniqueSuffix()}`;
const admin = () => new Client({ connectionString: requireEnv('DATABASE_URL') });

beforeAll(async () => {
  const client = admin();
  await client.connect();
  await client.query(`CREATE DATABASE ${database}`);
  await client.end();
});
afterAll(async () => {
  const client = admin();
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await client.end();
});

describeMirrorStore('PostgreSQL', () => {
  const url = new URL(requireEnv('DATABASE_URL'));
  url.pathname = `/${database}`;
  return openMirrorStore(url.toString());
});
