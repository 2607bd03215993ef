import { Pool } from 'pg';
import { requireEnv, uniqueSuffix, waitFor } from '@lx/testing';
import { type ConsumerHandle, PostgresEventLog } from '../../src';

/**
 * Each service of the embedded profile opens its own PostgresEventLog over its own pool (EVENT_BUS=postgres), so an
 * append in one service must wake the consumers of another at once: the appending transaction notifies at its
 * commit (LISTEN/NOTIFY), against the real PostgreSQL. The consumers' poll interval is set to ten minutes, so a
 * delivery within the test's seconds can only come from the notification.
 */
describe('PostgresEventLog: appends wake the consumers of another log on the same database', () => {
  const schema = `event_log_it_notify_${uniqueSuffix()}`;
  const topic = `notify.${uniqueSuffix()}`;
  const databaseUrl = requireEnv('DATABASE_URL');
  const TEN_MINUTES = 600_000;
  let publisherPool: Pool;
  let consumerPool: Pool;
  let publisher: PostgresEventLog;
  let consumer: PostgresEventLog;
  let handle: ConsumerHandle | undefined;

  beforeAll(async () => {
    publisherPool = new Pool({ connectionString: databaseUrl, max: 2 });
    consumerPool = new Pool({ connectionString: databaseUrl, max: 2 });
    publisher = new PostgresEventLog(publisherPool, { schema, pollIntervalMs: TEN_MINUTES });
    consumer = new PostgresEventLog(consumerPool, { schema, pollIntervalMs: TEN_MINUTES });
    await publisher.ensureTopics([
      { name: topic, partitions: 2, retentionMs: -1, cleanupPolicy: 'delete', description: 'the test' },
    ]);
  });

  afterAll(async () => {
    await handle?.stop();
    await consumer?.close();
    await publisher?.close();
    await publisherPool?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await publisherPool?.end();
    await consumerPool?.end();
  });

  it('delivers what the other log appended without waiting for the poll interval, again after its session was ended', async () => {
    const received: string[] = [];
    handle = await consumer.subscribeBatches({
      groupId: `it-notify-${uniqueSuffix()}`,
      topics: [topic],
      fromBeginning: true,
      handleBatch: async (batch, control) => {
        for (const message of batch.messages) {
          received.push(message.value!.toString());
          control.markConsumed(message.offset);
        }
      },
    });

    await publisher.publish(topic, [
      { key: 'a', value: 'first' },
      { key: 'b', value: 'second' },
    ]);
    await waitFor('both messages', () => Promise.resolve(received.length === 2), 10_000);
    expect([...received].sort()).toEqual(['first', 'second']);

    // The server ends the listening session (a restart, a failover): the log listens again and is woken as before.
    const { rowCount } = await publisherPool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1 AND pid <> pg_backend_pid()`,
      [`LISTEN "${schema}"`],
    );
    expect(rowCount).toBe(1);
    await waitFor(
      'a new listening session',
      async () => {
        const { rows } = await publisherPool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = $1`,
          [`LISTEN "${schema}"`],
        );
        return rows[0]!.n === 1;
      },
      10_000,
    );
    await publisher.publish(topic, [{ key: 'a', value: 'third' }]);
    await waitFor('the third message', () => Promise.resolve(received.length === 3), 10_000);
    expect(received[2]).toBe('third');
  });
});
