import { join } from 'node:path';
import { Pool } from 'pg';
import type { TopicSpec } from '@lx/contracts';
import { requireEnv, spawnTs, type TsProcess, uniqueSuffix, waitFor } from '@lx/testing';
import { type ConsumerHandle, type IncomingMessage, PostgresEventLog } from '../../src';

const CHILD = join(__dirname, 'support', 'crashing-batch-consumer.ts');

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

function seqOf(message: IncomingMessage): number {
  return (JSON.parse(message.value!.toString()) as { seq: number }).seq;
}

/** The offsets a child wrote as `consumed <offset>`, in the order it marked them. */
function consumedBy(child: TsProcess): number[] {
  return [...child.output().matchAll(/^consumed (\d+)$/gm)].map((match) => Number(match[1]));
}

/**
 * The embedded profile's event log (PostgresEventLog) when the process holding a consumer group is killed with
 * SIGKILL, against the real PostgreSQL: a child process consumes, the test kills it, and a member of the same group
 * started anew (a new PostgresEventLog on the same schema, as the restarted process would open) must go on from the
 * offset the log stored. The log stores what a batch handler marked only after the handler returns, so a kill in the
 * middle of a batch leaves the whole batch, marked or not, to be delivered again: no loss, and the repeats are exactly
 * the messages of that batch.
 */
describe('PostgresEventLog killed with SIGKILL', () => {
  const schema = `event_log_it_crash_${uniqueSuffix()}`;
  const databaseUrl = requireEnv('DATABASE_URL');
  let pool: Pool;
  let bus: PostgresEventLog;
  const children: TsProcess[] = [];
  const restarted: { pool: Pool; log: PostgresEventLog; handle?: ConsumerHandle }[] = [];

  beforeAll(async () => {
    pool = new Pool({ connectionString: databaseUrl, max: 4 });
    bus = new PostgresEventLog(pool, { schema, pollIntervalMs: 100 });
    await bus.ping(); // creates the schema and its tables
  });

  // A child a failed test left running would consume beside the next member of its group: none survives a test.
  afterEach(async () => {
    const running = children.filter((child) => child.process.exitCode === null && child.process.signalCode === null);
    for (const child of running) child.process.kill('SIGKILL');
    await Promise.all(running.map((child) => child.exited));
    for (const member of restarted.splice(0)) {
      await member.handle?.stop();
      await member.log.close();
      await member.pool.end();
    }
  });

  afterAll(async () => {
    await bus?.close();
    await pool?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool?.end();
  });

  async function freshTopic(): Promise<string> {
    const topic: TopicSpec = {
      name: `it.crash.${uniqueSuffix()}`,
      partitions: 1,
      retentionMs: -1,
      cleanupPolicy: 'delete',
      description: 'PostgresEventLog crash test topic',
    };
    await bus.ensureTopics([topic]);
    return topic.name;
  }

  async function publish(topic: string, from: number, count: number): Promise<void> {
    await bus.publish(
      topic,
      range(from, from + count).map((seq) => ({ key: 'k', value: JSON.stringify({ seq }) })),
    );
  }

  /** The next offset the log stored for the group's only partition, or undefined while it stored none. */
  async function storedOffset(groupId: string, topic: string): Promise<number | undefined> {
    const { rows } = await pool.query<{ next_offset: string }>(
      `SELECT next_offset FROM "${schema}".group_offsets WHERE group_id = $1 AND topic = $2 AND partition = 0`,
      [groupId, topic],
    );
    return rows[0] ? Number(rows[0].next_offset) : undefined;
  }

  function startChild(env: Record<string, string>): TsProcess {
    const child = spawnTs(CHILD, { ...process.env, DATABASE_URL: databaseUrl, EVENT_LOG_SCHEMA: schema, ...env });
    children.push(child);
    return child;
  }

  async function waitForOutput(child: TsProcess, description: string, pattern: RegExp): Promise<void> {
    await waitFor(description, () => Promise.resolve(pattern.test(child.output())), 90_000).catch((error: Error) => {
      throw new Error(`${error.message}\n--- child output ---\n${child.output()}`);
    });
  }

  async function kill(child: TsProcess): Promise<void> {
    expect(child.process.exitCode).toBeNull(); // still running: hung in its batch, or idle
    child.process.kill('SIGKILL');
    const exit = await child.exited;
    expect(exit.signal).toBe('SIGKILL');
  }

  /** A member of the group in this process, on a log of its own, as the restarted process would open it. */
  async function restartMember(topic: string, groupId: string): Promise<IncomingMessage[]> {
    const received: IncomingMessage[] = [];
    const memberPool = new Pool({ connectionString: databaseUrl, max: 4 });
    const log = new PostgresEventLog(memberPool, { schema, pollIntervalMs: 100 });
    const member: (typeof restarted)[number] = { pool: memberPool, log };
    restarted.push(member);
    member.handle = await log.subscribeBatches({
      groupId,
      topics: [topic],
      fromBeginning: true,
      handleBatch: (batch, control) => {
        for (const message of batch.messages) {
          if (!control.isActive()) break;
          received.push(message);
          control.markConsumed(message.offset);
        }
        return Promise.resolve();
      },
    });
    return received;
  }

  it('redelivers, after a kill in the middle of a batch, every message from the stored offset on and none before it', async () => {
    const MESSAGES = 12;
    const BATCH = 4;
    const MARKS_BEFORE_HANG = 2;
    const topic = await freshTopic();
    const groupId = `it-crash-batch-${uniqueSuffix()}`;
    await publish(topic, 0, MESSAGES);

    // The child handles the first batch (offsets 0-3) to the end, then marks 4 and 5 of the second batch and hangs.
    const child = startChild({
      TOPIC: topic,
      GROUP_ID: groupId,
      MAX_BATCH_SIZE: String(BATCH),
      HANG_IN_BATCH: '2',
      HANG_AFTER_MARKS: String(MARKS_BEFORE_HANG),
    });
    await waitForOutput(child, 'the child hanging in its second batch', /^hanging in batch 2$/m);
    // The first message the child never finished with: where the batch it hangs in starts.
    const unfinished = Number(/^batch 2 from (\d+)$/m.exec(child.output())?.[1]);
    expect(unfinished).toBe(BATCH);
    expect(consumedBy(child)).toEqual(range(0, BATCH + MARKS_BEFORE_HANG));
    // What the first batch marked was stored when its handler returned; nothing of the batch in hand is.
    expect(await storedOffset(groupId, topic)).toBe(unfinished);

    await kill(child);
    expect(await storedOffset(groupId, topic)).toBe(unfinished);

    const received = await restartMember(topic, groupId);
    await waitFor('the restarted member to reach the last message', () =>
      Promise.resolve(received.some((message) => Number(message.offset) === MESSAGES - 1)),
    );
    // Every message from the first unfinished one (the stored offset) on, in order, none missing, none before it...
    expect(received.map((message) => Number(message.offset))).toEqual(range(unfinished, MESSAGES));
    expect(received.map(seqOf)).toEqual(range(unfinished, MESSAGES));
    // ...so the repeats are exactly what the killed child marked in the batch it never finished.
    const repeated = consumedBy(child).filter((offset) =>
      received.some((message) => Number(message.offset) === offset),
    );
    expect(repeated).toEqual(range(BATCH, BATCH + MARKS_BEFORE_HANG));
    await waitFor(
      'the restarted member to store the end',
      async () => (await storedOffset(groupId, topic)) === MESSAGES,
    );
  });

  it('delivers, after a kill while idle, only the messages published after the batch the killed process finished', async () => {
    const FIRST = 6;
    const AFTER = 4;
    const topic = await freshTopic();
    const groupId = `it-crash-idle-${uniqueSuffix()}`;
    await publish(topic, 0, FIRST);

    // The child takes the whole first batch, marks it all and returns: the log stores its end; then the child idles.
    const child = startChild({ TOPIC: topic, GROUP_ID: groupId, MAX_BATCH_SIZE: '100' });
    await waitForOutput(child, 'the child returning from its first batch', /^returned from batch 1$/m);
    await waitFor('the first batch stored', async () => (await storedOffset(groupId, topic)) === FIRST);
    expect(consumedBy(child)).toEqual(range(0, FIRST));

    await kill(child);
    expect(child.output()).not.toMatch(/^batch 2 /m);
    await publish(topic, FIRST, AFTER);

    const received = await restartMember(topic, groupId);
    await waitFor('the messages published after', () => Promise.resolve(received.length >= AFTER));
    // A last message published while the member runs: once it arrived, nothing else can arrive before it.
    await publish(topic, FIRST + AFTER, 1);
    await waitFor('the last message', () => Promise.resolve(received.length >= AFTER + 1));
    expect(received.map((message) => Number(message.offset))).toEqual(range(FIRST, FIRST + AFTER + 1));
    expect(received.map(seqOf)).toEqual(range(FIRST, FIRST + AFTER + 1));
  });
});
