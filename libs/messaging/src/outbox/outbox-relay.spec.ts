import type { DataSource, QueryRunner } from 'typeorm';
import { MetricsRegistry } from '@lx/platform';
import type { EventBus, OutgoingMessage } from '../event-bus';
import { OutboxRelay } from './outbox-relay';
import { type RelayBatch, type RelayMessage, RelaySource } from './relay-source';

const CREATED = new Date();

function batchOf(name: string): RelayBatch {
  const messages: RelayMessage[] = [{ topic: 't', key: name, value: name, headers: {}, createdAt: CREATED }];
  return { messages, end: name };
}

const EMPTY: RelayBatch = { messages: [], end: undefined };

/** A source answering reads from a script (then nothing), recording every call in one journal. */
class ScriptedSource extends RelaySource {
  constructor(
    private readonly reads: RelayBatch[],
    readonly journal: string[],
  ) {
    super();
  }
  leaderLock(): string {
    return 'lock';
  }
  resume(): Promise<void> {
    this.journal.push('resume');
    return Promise.resolve();
  }
  read(_runner: QueryRunner, _limit: number, after?: RelayBatch): Promise<RelayBatch> {
    const batch = this.reads.shift() ?? EMPTY;
    const [from, to] = [
      (after?.end as string | undefined) ?? 'checkpoint',
      (batch.end as string | undefined) ?? 'nothing',
    ];
    this.journal.push(`read after ${from}: ${to}`);
    return Promise.resolve(batch);
  }
  confirm(_runner: QueryRunner, batch: RelayBatch): Promise<void> {
    this.journal.push(`confirm ${batch.end as string}`);
    return Promise.resolve();
  }
}

/** A bus whose sends each wait for the test to settle them. */
class HeldBus {
  readonly sends: { key: string; ack(): void; fail(): void }[] = [];
  constructor(private readonly journal: string[]) {}
  topicOnLog(topic: string): string {
    return topic;
  }
  publish(_topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    const key = messages[0]!.key ?? '';
    this.journal.push(`send ${key}`);
    return new Promise<void>((resolve, reject) => {
      this.sends.push({
        key,
        ack: () => {
          this.journal.push(`ack ${key}`);
          resolve();
        },
        fail: () => reject(new Error(`send of ${key} failed`)),
      });
    });
  }
}

const dataSource = {
  options: { schema: 's' },
  createQueryRunner: () =>
    ({
      connect: () => Promise.resolve(),
      release: () => Promise.resolve(),
      query: (sql: string) => Promise.resolve(sql.includes('pg_try_advisory_lock') ? [{ locked: true }] : []),
    }) as unknown as QueryRunner,
} as unknown as DataSource;

function startRelay(reads: RelayBatch[], pollIntervalMs: number, lingerMs = 0) {
  const journal: string[] = [];
  const source = new ScriptedSource(reads, journal);
  const bus = new HeldBus(journal);
  const relay = new OutboxRelay(dataSource, bus as unknown as EventBus, source, new MetricsRegistry(), {
    batchSize: 10,
    pollIntervalMs,
    lingerMs,
  });
  relay.onApplicationBootstrap();
  const sent = async (count: number) => {
    while (bus.sends.length < count) await new Promise((resolve) => setImmediate(resolve));
    return bus.sends[count - 1]!;
  };
  return { relay, source, journal, sent };
}

describe('OutboxRelay', () => {
  it('given batches waiting, when relayed, then the next is read while one is sent, and each is confirmed after its ack in read order', async () => {
    const { relay, journal, sent } = startRelay([batchOf('a'), batchOf('b')], 10_000);

    (await sent(1)).ack();
    (await sent(2)).ack();
    await relay.beforeApplicationShutdown();

    expect(journal).toEqual([
      'resume',
      'read after checkpoint: a',
      'read after a: b',
      'send a',
      'ack a',
      'confirm a',
      'read after b: nothing',
      'send b',
      'ack b',
      'confirm b',
    ]);
  });

  it('given a send that fails, when relayed, then nothing is confirmed and it reads again from the checkpoint', async () => {
    const { relay, journal, sent } = startRelay([batchOf('a'), batchOf('b'), batchOf('a')], 10_000);

    (await sent(1)).fail();
    (await sent(2)).ack();
    await relay.beforeApplicationShutdown();

    expect(journal.slice(0, 6)).toEqual([
      'resume',
      'read after checkpoint: a',
      'read after a: b',
      'send a',
      'resume',
      'read after checkpoint: a',
    ]);
    expect(journal).not.toContain('confirm b');
    expect(journal.filter((entry) => entry.startsWith('confirm'))).toEqual(['confirm a']);
  }, 10_000);

  it('given a commit signalled while a batch is sent, when the read ahead finds nothing, then it reads again at once instead of idling', async () => {
    const { relay, source, journal, sent } = startRelay([batchOf('a'), EMPTY, batchOf('b')], 60_000);

    const first = await sent(1);
    source.signals.emit('appended');
    first.ack();
    (await sent(2)).ack();
    await relay.beforeApplicationShutdown();

    expect(journal.slice(0, 8)).toEqual([
      'resume',
      'read after checkpoint: a',
      'read after a: nothing',
      'send a',
      'ack a',
      'confirm a',
      'read after checkpoint: b',
      'read after b: nothing',
    ]);
  });

  it('given a linger, when a batch was not full, then the next read waits for it from the previous read, and not after a full one', async () => {
    const full: RelayBatch = {
      messages: Array.from({ length: 10 }, () => batchOf('f').messages[0]!),
      end: 'f',
    };
    const { relay, source, journal, sent } = startRelay([full, batchOf('a'), batchOf('b')], 60_000, 300);
    const readAt: number[] = [];
    const read = source.read.bind(source);
    source.read = (...args) => {
      readAt.push(Date.now());
      return read(...args);
    };

    (await sent(1)).ack();
    (await sent(2)).ack();
    (await sent(3)).ack();
    await relay.beforeApplicationShutdown();

    expect(journal.filter((entry) => entry.startsWith('read'))).toEqual([
      'read after checkpoint: f',
      'read after f: a',
      'read after a: b',
      'read after b: nothing',
    ]);
    // After the full batch at once; after the one-message batch a linger later (the last read was cut short by stop).
    expect(readAt[1]! - readAt[0]!).toBeLessThan(100);
    expect(readAt[2]! - readAt[1]!).toBeGreaterThanOrEqual(295);
  });

  it('given an idle relay with a long poll interval, when stopped, then it stops at once', async () => {
    const { relay, journal } = startRelay([], 60_000);
    while (!journal.includes('read after checkpoint: nothing')) await new Promise((resolve) => setImmediate(resolve));

    const started = Date.now();
    await relay.beforeApplicationShutdown();

    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
