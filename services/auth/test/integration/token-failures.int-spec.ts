import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions, migrateSchema } from '@lx/platform';
import { requireEnv, uniqueSuffix } from '@lx/testing';
import { ENTITIES } from '../../src/database/entities';
import { MIGRATIONS } from '../../src/database/migrations';
import { TokenFailuresRepository } from '../../src/tokens/infrastructure/token-failures.repository';
import { dropSchema } from './support/auth-under-test';

/**
 * The failed-authentication counters against real Postgres, on a migrated schema of their own. Its SQL is raw, so
 * only Postgres can tell whether it is typed right: purgeEnded once failed on every call ("operator does not exist:
 * timestamp with time zone <= interval") and nothing but the schedule's warning showed it.
 */
describe('TokenFailuresRepository against the real Postgres', () => {
  const schema = `auth_it_failures_${uniqueSuffix()}`;
  const dataSource = new DataSource(
    dataSourceOptions({
      config: { url: requireEnv('DATABASE_URL'), schema, poolSize: 2, migrateOnBoot: false },
      entities: ENTITIES,
      migrations: MIGRATIONS,
    }),
  );
  const failures = new TokenFailuresRepository(dataSource);

  const WINDOW_SECONDS = 60;
  const T = new Date('2026-03-01T12:00:00.000Z');
  const at = (seconds: number) => new Date(T.getTime() + seconds * 1000);

  /** Puts a counter in place directly, so the purge is tested apart from record(). */
  const seed = (clientId: string, windowStart: Date, count: number) =>
    dataSource.query(
      'INSERT INTO token_failures (client_id, window_start, failures) VALUES ($1, $2::timestamptz, $3)',
      [clientId, windowStart, count],
    );
  const clientIds = async (): Promise<string[]> => {
    const rows = await dataSource.query<{ client_id: string }[]>(
      'SELECT client_id FROM token_failures ORDER BY client_id',
    );
    return rows.map((row) => row.client_id);
  };

  beforeAll(async () => {
    await dataSource.initialize();
    await migrateSchema(dataSource, schema);
  }, 60_000);

  afterAll(async () => {
    if (dataSource.isInitialized) await dataSource.destroy();
    await dropSchema(schema);
  });

  beforeEach(() => dataSource.query('DELETE FROM token_failures'));

  describe('purgeEnded', () => {
    it('deletes the counters whose window has ended, keeps the open ones, and returns how many it deleted', async () => {
      const longEnded = randomUUID();
      const endedJustNow = randomUUID();
      const aboutToEnd = randomUUID();
      const justOpened = randomUUID();
      await seed(longEnded, at(-3600), 5);
      await seed(endedJustNow, at(-WINDOW_SECONDS), 3);
      await seed(aboutToEnd, at(-WINDOW_SECONDS + 1), 2);
      await seed(justOpened, T, 1);

      await expect(failures.purgeEnded(T, WINDOW_SECONDS)).resolves.toBe(2);

      expect(await clientIds()).toEqual([aboutToEnd, justOpened].sort());
      await expect(failures.find(aboutToEnd)).resolves.toEqual({ windowStart: at(-WINDOW_SECONDS + 1), failures: 2 });
      await expect(failures.find(justOpened)).resolves.toEqual({ windowStart: T, failures: 1 });
      await expect(failures.find(longEnded)).resolves.toBeNull();
      await expect(failures.find(endedJustNow)).resolves.toBeNull();
    });

    it('returns 0 when no window has ended, and when there is nothing at all', async () => {
      await expect(failures.purgeEnded(T, WINDOW_SECONDS)).resolves.toBe(0);
      const open = randomUUID();
      await seed(open, at(-10), 4);
      await expect(failures.purgeEnded(T, WINDOW_SECONDS)).resolves.toBe(0);
      expect(await clientIds()).toEqual([open]);
    });

    it('measures the window by the length it is given', async () => {
      const client = randomUUID();
      await seed(client, at(-30), 1);
      await expect(failures.purgeEnded(T, 31)).resolves.toBe(0);
      await expect(failures.purgeEnded(T, 30)).resolves.toBe(1);
      expect(await clientIds()).toEqual([]);
    });
  });

  describe('record', () => {
    it('opens a window at the first failure and counts further failures within it', async () => {
      const client = randomUUID();
      await failures.record(client, T, WINDOW_SECONDS);
      await expect(failures.find(client)).resolves.toEqual({ windowStart: T, failures: 1 });

      await failures.record(client, at(10), WINDOW_SECONDS);
      await failures.record(client, at(WINDOW_SECONDS - 0.001), WINDOW_SECONDS);
      await expect(failures.find(client)).resolves.toEqual({ windowStart: T, failures: 3 });
    });

    it('opens a new window once the old one has ended, and counts within that one', async () => {
      const client = randomUUID();
      await failures.record(client, T, WINDOW_SECONDS);
      await failures.record(client, at(1), WINDOW_SECONDS);
      await expect(failures.find(client)).resolves.toEqual({ windowStart: T, failures: 2 });

      await failures.record(client, at(WINDOW_SECONDS), WINDOW_SECONDS);
      await expect(failures.find(client)).resolves.toEqual({ windowStart: at(WINDOW_SECONDS), failures: 1 });

      await failures.record(client, at(WINDOW_SECONDS + 5), WINDOW_SECONDS);
      await expect(failures.find(client)).resolves.toEqual({ windowStart: at(WINDOW_SECONDS), failures: 2 });

      // Long after: again a fresh window, not a count carried over.
      await failures.record(client, at(10 * WINDOW_SECONDS), WINDOW_SECONDS);
      await expect(failures.find(client)).resolves.toEqual({ windowStart: at(10 * WINDOW_SECONDS), failures: 1 });
    });

    it('counts each client id on its own, and its counters are the ones purgeEnded then drops', async () => {
      const first = randomUUID();
      const second = randomUUID();
      await failures.record(first, T, WINDOW_SECONDS);
      await failures.record(second, at(30), WINDOW_SECONDS);
      await failures.record(second, at(31), WINDOW_SECONDS);
      await expect(failures.find(first)).resolves.toEqual({ windowStart: T, failures: 1 });
      await expect(failures.find(second)).resolves.toEqual({ windowStart: at(30), failures: 2 });

      await expect(failures.purgeEnded(at(WINDOW_SECONDS), WINDOW_SECONDS)).resolves.toBe(1);
      expect(await clientIds()).toEqual([second]);
      await expect(failures.purgeEnded(at(WINDOW_SECONDS + 30), WINDOW_SECONDS)).resolves.toBe(1);
      expect(await clientIds()).toEqual([]);
    });
  });
});
