import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions, migrateSchema } from '@lx/platform';
import { requireEnv, uniqueSuffix } from '@lx/testing';
import { ENTITIES } from '../../src/database/entities';
import { MIGRATIONS } from '../../src/database/migrations';
import { TokenThrottleRepository } from '../../src/tokens/infrastructure/token-throttle.repository';
import { dropSchema } from './support/auth-under-test';

/**
 * The token endpoint's counters and known sources against real Postgres, on a migrated schema of their own. Their SQL
 * is raw, so only Postgres can tell whether it is typed right: the purge once failed on every call ("operator does not
 * exist: timestamp with time zone <= interval") and nothing but the schedule's warning showed it.
 */
describe('TokenThrottleRepository against the real Postgres', () => {
  const schema = `auth_it_throttle_${uniqueSuffix()}`;
  const dataSource = new DataSource(
    dataSourceOptions({
      config: { url: requireEnv('DATABASE_URL'), schema, poolSize: 4, migrateOnBoot: false },
      entities: ENTITIES,
      migrations: MIGRATIONS,
    }),
  );
  const throttle = new TokenThrottleRepository(dataSource);

  const WINDOW_SECONDS = 60;
  const T = new Date('2026-03-01T12:00:00.000Z');
  const at = (seconds: number) => new Date(T.getTime() + seconds * 1000);

  /** Puts a counter in place directly, so the purge is tested apart from begin(). */
  const seed = (subject: string, windowStart: Date, failures: number) =>
    dataSource.query(
      'INSERT INTO token_throttle (subject, window_start, failures, pending) VALUES ($1, $2::timestamptz, $3, 0)',
      [subject, windowStart, failures],
    );
  const subjects = async (): Promise<string[]> => {
    const rows = await dataSource.query<{ subject: string }[]>('SELECT subject FROM token_throttle ORDER BY subject');
    return rows.map((row) => row.subject);
  };
  const counterOf = async (subject: string) => {
    const rows = await dataSource.query<{ window_start: Date; failures: number; pending: number }[]>(
      'SELECT window_start, failures, pending FROM token_throttle WHERE subject = $1',
      [subject],
    );
    const row = rows[0];
    return row === undefined ? null : { windowStart: row.window_start, failures: row.failures, pending: row.pending };
  };

  beforeAll(async () => {
    await dataSource.initialize();
    await migrateSchema(dataSource, schema);
  }, 60_000);

  afterAll(async () => {
    if (dataSource.isInitialized) await dataSource.destroy();
    await dropSchema(schema);
  });

  beforeEach(() => dataSource.query('DELETE FROM token_throttle; DELETE FROM token_known_sources'));

  describe('begin and end', () => {
    it('opens a window at the first attempt and returns each count of failures and attempts under way', async () => {
      await expect(throttle.begin('client:a', T, WINDOW_SECONDS)).resolves.toEqual({
        windowStart: T,
        failures: 0,
        pending: 1,
      });
      await throttle.end('client:a', T, 'failed');
      await expect(throttle.begin('client:a', at(10), WINDOW_SECONDS)).resolves.toEqual({
        windowStart: T,
        failures: 1,
        pending: 1,
      });
      await expect(throttle.begin('client:a', at(WINDOW_SECONDS - 0.001), WINDOW_SECONDS)).resolves.toEqual({
        windowStart: T,
        failures: 1,
        pending: 2,
      });
    });

    it('opens a new window once the old one has ended, and ends an attempt only in the window it began in', async () => {
      await throttle.begin('source:s', T, WINDOW_SECONDS);
      await throttle.end('source:s', T, 'failed');
      await throttle.begin('source:s', at(1), WINDOW_SECONDS);
      await expect(throttle.begin('source:s', at(WINDOW_SECONDS), WINDOW_SECONDS)).resolves.toEqual({
        windowStart: at(WINDOW_SECONDS),
        failures: 0,
        pending: 1,
      });
      // The attempt begun in the old window ends there: nothing changes in the new one.
      await throttle.end('source:s', T, 'failed');
      await expect(counterOf('source:s')).resolves.toEqual({
        windowStart: at(WINDOW_SECONDS),
        failures: 0,
        pending: 1,
      });
    });

    it('counts a failure, clears the failures, or only ends the attempt, never below zero', async () => {
      for (let i = 0; i < 3; i += 1) {
        await throttle.begin('pair:p', T, WINDOW_SECONDS);
        await throttle.end('pair:p', T, 'failed');
      }
      await throttle.begin('pair:p', T, WINDOW_SECONDS);
      await throttle.end('pair:p', T, 'succeeded-keep');
      await expect(counterOf('pair:p')).resolves.toEqual({ windowStart: T, failures: 3, pending: 0 });
      await throttle.begin('pair:p', T, WINDOW_SECONDS);
      await throttle.end('pair:p', T, 'not-checked');
      await throttle.end('pair:p', T, 'not-checked');
      await expect(counterOf('pair:p')).resolves.toEqual({ windowStart: T, failures: 3, pending: 0 });
      await throttle.begin('pair:p', T, WINDOW_SECONDS);
      await throttle.end('pair:p', T, 'succeeded-clear');
      await expect(counterOf('pair:p')).resolves.toEqual({ windowStart: T, failures: 0, pending: 0 });
    });

    it('hands out every count once under a parallel burst: none is lost or given twice', async () => {
      const counts = await Promise.all(
        Array.from({ length: 40 }, () => throttle.begin('client:burst', T, WINDOW_SECONDS)),
      );
      expect(counts.map((counter) => counter.pending).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 40 }, (_, i) => i + 1),
      );
    });
  });

  describe('known sources', () => {
    it('knows a source from its last success on, until the given horizon passes it, per client', async () => {
      const client = randomUUID();
      await expect(throttle.isKnownSource(client, '203.0.113.7', at(-100))).resolves.toBe(false);
      await throttle.rememberSource(client, '203.0.113.7', T);
      await expect(throttle.isKnownSource(client, '203.0.113.7', at(-100))).resolves.toBe(true);
      await expect(throttle.isKnownSource(client, '203.0.113.7', T)).resolves.toBe(false);
      await expect(throttle.isKnownSource(client, '198.51.100.1', at(-100))).resolves.toBe(false);
      await expect(throttle.isKnownSource(randomUUID(), '203.0.113.7', at(-100))).resolves.toBe(false);

      await throttle.rememberSource(client, '203.0.113.7', at(50));
      await expect(throttle.isKnownSource(client, '203.0.113.7', at(10))).resolves.toBe(true);
    });

    it('forgets the sources not used since a time, in batches of the given size', async () => {
      const client = randomUUID();
      await throttle.rememberSource(client, 'old-1', at(-200));
      await throttle.rememberSource(client, 'old-2', at(-100));
      await throttle.rememberSource(client, 'recent', T);
      await expect(throttle.purgeKnownSources(at(-100), 1)).resolves.toBe(1);
      await expect(throttle.purgeKnownSources(at(-100), 10)).resolves.toBe(1);
      await expect(throttle.purgeKnownSources(at(-100), 10)).resolves.toBe(0);
      await expect(throttle.isKnownSource(client, 'recent', at(-1))).resolves.toBe(true);
    });
  });

  describe('purgeEnded', () => {
    it('deletes the counters whose window has ended, keeps the open ones, and returns how many it deleted', async () => {
      await seed('client:long-ended', at(-3600), 5);
      await seed('client:ended-just-now', at(-WINDOW_SECONDS), 3);
      await seed('client:about-to-end', at(-WINDOW_SECONDS + 1), 2);
      await seed('source:just-opened', T, 1);

      await expect(throttle.purgeEnded(T, WINDOW_SECONDS, 100)).resolves.toBe(2);
      expect(await subjects()).toEqual(['client:about-to-end', 'source:just-opened']);
      await expect(throttle.purgeEnded(T, WINDOW_SECONDS, 100)).resolves.toBe(0);
    });

    it('measures the window by the length it is given, and deletes at most `limit` rows a call', async () => {
      await seed('a', at(-30), 1);
      await seed('b', at(-30), 1);
      await expect(throttle.purgeEnded(T, 31, 100)).resolves.toBe(0);
      await expect(throttle.purgeEnded(T, 30, 1)).resolves.toBe(1);
      await expect(throttle.purgeEnded(T, 30, 1)).resolves.toBe(1);
      expect(await subjects()).toEqual([]);
    });
  });
});
