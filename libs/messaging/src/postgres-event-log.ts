import { Logger } from '@nestjs/common';
import { EventEmitter, setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Partitioners, type PartitionMetadata } from 'kafkajs';
import { Client, type Pool, type PoolClient } from 'pg';
import type { TopicSpec } from '@lx/contracts';
import {
  type AssignedPartition,
  type BatchControl,
  type BatchSubscription,
  type ConsumerHandle,
  EventBus,
  type IncomingMessage,
  type OutgoingMessage,
  type PartitionBounds,
  type PartitionPosition,
  type Subscription,
} from './event-bus';
import { quoteIdentifier } from './projection/projection-rebuild';

export interface PostgresEventLogOptions {
  /** The schema that holds the log's tables (created at first use). */
  schema?: string;
  /** Most messages handed to one batch. */
  maxBatchSize?: number;
  /**
   * How often an idle consumer looks for new messages when no notification came: an append notifies every log on the
   * database (LISTEN/NOTIFY) at its commit, so this is only the fallback while the listening session reconnects.
   */
  pollIntervalMs?: number;
}

/** A failing batch is retried with backoff up to this long between attempts. */
const MAX_RETRY_DELAY_MS = 5_000;
/** After this many failures in a row a member reports a crash and rejoins (re-reads its positions), as kafkajs does. */
const FAILURES_BEFORE_RESTART = 8;
/** The listening session, ended by the server, connects again after this long. */
const RELISTEN_DELAY_MS = 1_000;

const kafkaPartitioner = Partitioners.DefaultPartitioner();

/** The partition of a key, computed as Kafka's default partitioner does (murmur2), so keys land where they would. */
function partitionOf(topic: string, partitions: number, key: string): number {
  const partitionMetadata: PartitionMetadata[] = Array.from({ length: partitions }, (_, partitionId) => ({
    partitionId,
    leader: 0,
    partitionErrorCode: 0,
    replicas: [0],
    isr: [0],
  }));
  return kafkaPartitioner({ topic, partitionMetadata, message: { key, value: null } });
}

/** Every error as an Error, for consumer events. */
function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * The event log of EVENT_BUS=postgres (the embedded profile): the EventBus port backed by three tables of a PostgreSQL
 * schema, for a single-node deployment. It keeps the guarantees the consumers rely on:
 * - order per key: a key maps to a partition as in Kafka, and a partition's offsets are handed out under the lock of
 *   its row, so they are dense and commit in order;
 * - consumer groups with stored offsets: what a batch handler marks consumed is stored after the handler returns;
 *   a group without stored offsets starts at the beginning, or at the end as it stood when it first joined;
 * - redelivery: a throwing handler, a stop or a crash leaves every unmarked message to be delivered again;
 * - replay: messages are never deleted (no retention or compaction: readers of a compacted topic apply every
 *   message in order and end at the same state), so a new group reads everything.
 * An append wakes the idle consumers of every log on the same database and schema at once, in this process or
 * another (each service of the embedded profile has its own log over its own pool): the appending transaction sends
 * a notification at its commit, which each log's listening session receives.
 * One member per group: a group's partitions are not shared between members, so a second member in this log is
 * refused, and a service on this log runs one replica (EVENT_BUS=postgres: a single-node deployment).
 */
export class PostgresEventLog extends EventBus {
  readonly name = 'eventLog';
  private readonly logger = new Logger(PostgresEventLog.name);
  private readonly schema: string;
  private readonly maxBatchSize: number;
  private readonly pollIntervalMs: number;
  /** The notification channel: the schema's name. */
  private readonly channel: string;
  /** Emits `${topic}/${partition}` when an append to that partition was notified. */
  private readonly appended = new EventEmitter().setMaxListeners(0);
  /** Appends notified per `${topic}/${partition}` since start, so a consumer can tell whether it missed one. */
  private readonly appends = new Map<string, number>();
  private readonly members = new Map<string, GroupMember>();
  private ready?: Promise<void>;
  /** The session that LISTENs on the channel, while it is connected or connecting. */
  private listener?: Promise<Client | undefined>;
  private relistenTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly pool: Pool,
    options: PostgresEventLogOptions = {},
  ) {
    super();
    this.channel = options.schema ?? 'event_log';
    if (!/^[a-z_][a-z0-9_]*$/.test(this.channel)) throw new Error(`invalid schema name ${this.channel}`);
    this.schema = quoteIdentifier(this.channel);
    this.maxBatchSize = options.maxBatchSize ?? 1_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
  }

  /** Creates the log's tables once; every operation waits for it. */
  private tables(): Promise<void> {
    this.ready ??= this.transaction(async (client) => {
      // Serialises processes creating the schema at the same time (CREATE … IF NOT EXISTS races on the catalog).
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('lx-event-log'))`);
      await client.query(`
        CREATE SCHEMA IF NOT EXISTS ${this.schema};
        CREATE TABLE IF NOT EXISTS ${this.schema}.partitions (
          topic text NOT NULL,
          partition integer NOT NULL,
          next_offset bigint NOT NULL DEFAULT 0,
          PRIMARY KEY (topic, partition)
        );
        CREATE TABLE IF NOT EXISTS ${this.schema}.messages (
          topic text NOT NULL,
          partition integer NOT NULL,
          "offset" bigint NOT NULL,
          key text,
          value bytea,
          headers jsonb NOT NULL,
          appended_at timestamptz NOT NULL DEFAULT clock_timestamp(),
          PRIMARY KEY (topic, partition, "offset")
        );
        CREATE TABLE IF NOT EXISTS ${this.schema}.group_offsets (
          group_id text NOT NULL,
          topic text NOT NULL,
          partition integer NOT NULL,
          next_offset bigint NOT NULL,
          updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
          PRIMARY KEY (group_id, topic, partition)
        );
      `);
    }).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await this.tables();
    await this.transaction(async (client) => {
      const { rows } = await client.query<{ partitions: string }>(
        `SELECT count(*) AS partitions FROM ${this.schema}.partitions WHERE topic = $1`,
        [topic],
      );
      const partitions = Number(rows[0]?.partitions ?? 0);
      if (partitions === 0) throw new Error(`topic ${topic} does not exist`);
      const byPartition = new Map<number, OutgoingMessage[]>();
      for (const message of messages) {
        const partition = partitionOf(topic, partitions, message.key);
        byPartition.set(partition, [...(byPartition.get(partition) ?? []), message]);
      }
      // Partitions in ascending order, so two publishes never wait for each other's locks in a cycle.
      for (const [partition, batch] of [...byPartition].sort(([a], [b]) => a - b)) {
        const { rows: next } = await client.query<{ next_offset: string }>(
          `UPDATE ${this.schema}.partitions SET next_offset = next_offset + $3
           WHERE topic = $1 AND partition = $2 RETURNING next_offset`,
          [topic, partition, batch.length],
        );
        const first = BigInt(next[0]!.next_offset) - BigInt(batch.length);
        await client.query(
          `INSERT INTO ${this.schema}.messages (topic, partition, "offset", key, value, headers)
           SELECT $1, $2, $3::bigint + ordinality - 1, key, value, headers::jsonb
           FROM unnest($4::text[], $5::bytea[], $6::text[]) WITH ORDINALITY AS m(key, value, headers)`,
          [
            topic,
            partition,
            first.toString(),
            batch.map((message) => message.key),
            batch.map((message) => (typeof message.value === 'string' ? Buffer.from(message.value) : message.value)),
            batch.map((message) => JSON.stringify(message.headers ?? {})),
          ],
        );
        // Delivered to every listening session when the transaction commits (none if it rolls back).
        await client.query('SELECT pg_notify($1, $2)', [this.channel, `${topic}/${partition}`]);
      }
    });
  }

  async subscribe(subscription: Subscription): Promise<void> {
    await this.subscribeBatches({
      groupId: subscription.groupId,
      topics: subscription.topics,
      fromBeginning: subscription.fromBeginning,
      handleBatch: async (batch, control) => {
        for (const message of batch.messages) {
          if (!control.isActive()) return;
          await subscription.handle(message);
          control.markConsumed(message.offset);
        }
      },
    });
  }

  async subscribeBatches(subscription: BatchSubscription): Promise<ConsumerHandle> {
    await this.tables();
    await this.listen();
    if (this.members.has(subscription.groupId)) {
      throw new Error(`consumer group ${subscription.groupId} already has a member in this log`);
    }
    const member = new GroupMember(this, subscription, this.logger);
    this.members.set(subscription.groupId, member);
    try {
      await member.start();
    } catch (error) {
      this.members.delete(subscription.groupId);
      throw error;
    }
    let stopped: Promise<void> | undefined;
    return {
      stop: () => {
        stopped ??= member.stop().finally(() => this.members.delete(subscription.groupId));
        return stopped;
      },
    };
  }

  async partitionBounds(topic: string): Promise<readonly PartitionBounds[]> {
    await this.tables();
    const { rows } = await this.pool.query<{ partition: number; low: string; high: string }>(
      `SELECT p.partition, ${this.lowOffset('p')} AS low, p.next_offset AS high
       FROM ${this.schema}.partitions p WHERE p.topic = $1 ORDER BY p.partition`,
      [topic],
    );
    if (rows.length === 0) throw new Error(`topic ${topic} does not exist`);
    return rows.map((row) => ({ topic, partition: row.partition, low: String(row.low), high: String(row.high) }));
  }

  async deleteGroups(groupIds: readonly string[]): Promise<void> {
    if (groupIds.length === 0) return;
    await this.tables();
    // Like Kafka, a group with a member is not deleted.
    const idle = groupIds.filter((groupId) => !this.members.has(groupId));
    await this.pool.query(`DELETE FROM ${this.schema}.group_offsets WHERE group_id = ANY($1::text[])`, [idle]);
  }

  /**
   * Partition rows only: KAFKA_REPLICATION_FACTOR and KAFKA_MIN_INSYNC_REPLICAS mean nothing here. The log is rows of
   * one PostgreSQL database, as durable as that database (and its replicas, if any); the embedded profile has one.
   */
  async ensureTopics(topics: readonly TopicSpec[]): Promise<void> {
    await this.tables();
    for (const topic of topics) {
      await this.pool.query(
        `INSERT INTO ${this.schema}.partitions (topic, partition)
         SELECT $1, generate_series(0, $2::integer - 1) ON CONFLICT DO NOTHING`,
        [topic.name, topic.partitions],
      );
    }
  }

  async ping(): Promise<void> {
    await this.tables();
    await this.pool.query('SELECT 1');
  }

  /** Stops every consumer and the listening session; the pool belongs to whoever passed it in. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.relistenTimer);
    await Promise.allSettled([...this.members.values()].map((member) => member.stop()));
    this.members.clear();
    const listener = await this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  /**
   * Connects the session that LISTENs for appends, once (again when the server ended it). Until it listens, the
   * consumers look every pollIntervalMs; a failure to connect is logged and tried again.
   */
  private listen(): Promise<Client | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    this.listener ??= (async () => {
      const client = new Client(this.pool.options);
      client.on('notification', ({ payload }) => {
        if (payload === undefined) return;
        this.appends.set(payload, (this.appends.get(payload) ?? 0) + 1);
        this.appended.emit(payload);
      });
      // A session the server ended emits 'error' and then 'end'; unhandled, the error would end the process.
      client.on('error', (error) => this.logger.warn({ err: error.message }, 'Event log listener failed'));
      client.on('end', () => this.relisten());
      try {
        await client.connect();
        await client.query(`LISTEN ${this.schema}`);
        return client;
      } catch (error) {
        this.logger.warn({ err: String(error) }, 'Event log listener could not connect; consumers poll meanwhile');
        await client.end().catch(() => undefined);
        this.relisten();
        return undefined;
      }
    })();
    return this.listener;
  }

  /** The listening session ended: another one, after a pause (unless the log is closing). */
  private relisten(): void {
    this.listener = undefined;
    if (this.closed) return;
    clearTimeout(this.relistenTimer);
    this.relistenTimer = setTimeout(() => void this.listen(), RELISTEN_DELAY_MS).unref();
  }

  /** @internal The stored positions of a group, and where a partition without one starts. */
  async join(subscription: BatchSubscription): Promise<PartitionPosition[]> {
    return this.transaction(async (client) => {
      const { rows } = await client.query<{ topic: string; partition: number; next_offset: string; low: string }>(
        `SELECT p.topic, p.partition, p.next_offset, ${this.lowOffset('p')} AS low
         FROM ${this.schema}.partitions p WHERE p.topic = ANY($1::text[]) ORDER BY p.topic, p.partition`,
        [subscription.topics],
      );
      const missing = subscription.topics.filter((topic) => !rows.some((row) => row.topic === topic));
      if (missing.length > 0) throw new Error(`topics ${missing.join(', ')} do not exist`);
      const { rows: stored } = await client.query<{ topic: string; partition: number; next_offset: string }>(
        `SELECT topic, partition, next_offset FROM ${this.schema}.group_offsets WHERE group_id = $1`,
        [subscription.groupId],
      );
      const positions: PartitionPosition[] = [];
      for (const row of rows) {
        const known = stored.find((offset) => offset.topic === row.topic && offset.partition === row.partition);
        if (known) {
          positions.push({ topic: row.topic, partition: row.partition, offset: String(known.next_offset) });
          continue;
        }
        const offset = subscription.fromBeginning ? String(row.low) : String(row.next_offset);
        positions.push({ topic: row.topic, partition: row.partition, offset });
        // Stored at once: a group that starts at the end keeps the end as it stood when it first joined.
        if (!subscription.fromBeginning) {
          await this.storeOffset(client, subscription.groupId, row.topic, row.partition, offset);
        }
      }
      return positions;
    });
  }

  /** @internal Up to maxBatchSize messages of a partition from `offset` on. */
  async fetch(topic: string, partition: number, offset: string): Promise<IncomingMessage[]> {
    const { rows } = await this.pool.query<{
      offset: string;
      key: string | null;
      value: Buffer | null;
      headers: Record<string, string>;
    }>(
      `SELECT "offset", key, value, headers FROM ${this.schema}.messages
       WHERE topic = $1 AND partition = $2 AND "offset" >= $3 ORDER BY "offset" LIMIT $4`,
      [topic, partition, offset, this.maxBatchSize],
    );
    return rows.map((row) => ({
      topic,
      partition,
      offset: String(row.offset),
      key: row.key,
      value: row.value,
      headers: row.headers,
    }));
  }

  /** @internal Stores a group's next offset of a partition. */
  async commit(groupId: string, topic: string, partition: number, offset: string): Promise<void> {
    await this.storeOffset(this.pool, groupId, topic, partition, offset);
  }

  /** @internal How many appends to the partition were notified to this log. */
  appendsTo(topic: string, partition: number): number {
    return this.appends.get(`${topic}/${partition}`) ?? 0;
  }

  /**
   * @internal Resolves when the partition got messages after the `since`-th append, the poll interval passed, or the
   * signal aborted.
   */
  async appendedTo(topic: string, partition: number, since: number, signal: AbortSignal): Promise<void> {
    if (this.appendsTo(topic, partition) !== since) return;
    const event = `${topic}/${partition}`;
    let wake: () => void = () => undefined;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    this.appended.once(event, wake);
    try {
      await Promise.race([woken, sleep(this.pollIntervalMs, undefined, { signal }).catch(() => undefined)]);
    } finally {
      this.appended.off(event, wake);
    }
  }

  /** The first offset a partition row `alias` still holds (its next offset when empty), read from the index. */
  private lowOffset(alias: string): string {
    return `coalesce((SELECT min(m."offset") FROM ${this.schema}.messages m
      WHERE m.topic = ${alias}.topic AND m.partition = ${alias}.partition), ${alias}.next_offset)`;
  }

  private async storeOffset(
    db: Pick<Pool, 'query'>,
    groupId: string,
    topic: string,
    partition: number,
    offset: string,
  ): Promise<void> {
    await db.query(
      `INSERT INTO ${this.schema}.group_offsets (group_id, topic, partition, next_offset) VALUES ($1, $2, $3, $4)
       ON CONFLICT (group_id, topic, partition)
       DO UPDATE SET next_offset = EXCLUDED.next_offset, updated_at = clock_timestamp()`,
      [groupId, topic, partition, offset],
    );
  }

  private async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (error) {
      await client.query('ROLLBACK').then(
        () => client.release(),
        (rollbackError: unknown) => client.release(asError(rollbackError)),
      );
      throw error;
    }
  }
}

/** A counting semaphore: at most `size` holders at a time. */
class Semaphore {
  private waiting: (() => void)[] = [];
  constructor(private available: number) {}

  async acquire(): Promise<void> {
    if (this.available > 0) {
      this.available -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.available += 1;
  }
}

/**
 * The one member of a consumer group: a loop per assigned partition that fetches from its position, hands the
 * batch to the handler and stores what the handler marked consumed. A throwing handler is retried from the first
 * unmarked message with backoff; after FAILURES_BEFORE_RESTART failures in a row the member reports a crash and
 * rejoins, which asks positionsFor again.
 */
class GroupMember {
  private readonly abort = new AbortController();
  private readonly positions = new Map<string, string>();
  private readonly slots: Semaphore;
  private readonly loops: Promise<void>[] = [];
  private assigned: AssignedPartition[] = [];
  private rejoining?: Promise<void>;

  constructor(
    private readonly log: PostgresEventLog,
    private readonly subscription: BatchSubscription,
    private readonly logger: Logger,
  ) {
    this.slots = new Semaphore(Math.max(1, subscription.partitionsConcurrently ?? 1));
    // Every partition's loop waits on the signal.
    setMaxListeners(0, this.abort.signal);
  }

  private get report(): NonNullable<BatchSubscription['onEvent']> {
    return this.subscription.onEvent ?? (() => undefined);
  }

  async start(): Promise<void> {
    await this.joinGroup();
    for (const { topic, partition } of this.assigned) this.loops.push(this.consume(topic, partition));
  }

  async stop(): Promise<void> {
    if (this.abort.signal.aborted) return;
    this.abort.abort();
    await Promise.allSettled(this.loops);
    this.report({ type: 'stopped' });
  }

  private get stopping(): boolean {
    return this.abort.signal.aborted;
  }

  /** Reads the stored positions, reports the assignment, and lets positionsFor replace them. */
  private async joinGroup(): Promise<void> {
    const stored = await this.log.join(this.subscription);
    this.assigned = stored.map(({ topic, partition }) => ({ topic, partition }));
    for (const position of stored) this.positions.set(`${position.topic}/${position.partition}`, position.offset);
    this.report({ type: 'joined', assigned: this.assigned });
    if (this.subscription.positionsFor && this.assigned.length > 0) {
      for (const position of await this.subscription.positionsFor(this.assigned)) {
        this.positions.set(`${position.topic}/${position.partition}`, position.offset);
      }
    }
  }

  /** Rejoins once for every loop that asks while a rejoin is under way. */
  private rejoin(): Promise<void> {
    this.rejoining ??= (async () => {
      for (let attempt = 1; !this.stopping; attempt += 1) {
        try {
          await this.joinGroup();
          return;
        } catch (error) {
          this.report({ type: 'crashed', error: asError(error), restarting: true });
          await this.pause(attempt);
        }
      }
    })().finally(() => (this.rejoining = undefined));
    return this.rejoining;
  }

  private async consume(topic: string, partition: number): Promise<void> {
    const key = `${topic}/${partition}`;
    let failures = 0;
    while (!this.stopping) {
      try {
        await this.rejoining;
        const position = this.positions.get(key)!;
        const appends = this.log.appendsTo(topic, partition);
        const messages = await this.log.fetch(topic, partition, position);
        if (messages.length === 0) {
          await this.log.appendedTo(topic, partition, appends, this.abort.signal);
          continue;
        }
        await this.handle(key, { topic, partition, messages });
        failures = 0;
      } catch (error) {
        if (this.stopping) return;
        failures += 1;
        this.logger.warn(
          { groupId: this.subscription.groupId, topic, partition, failures, err: String(error) },
          'Batch failed; it will be delivered again',
        );
        if (failures >= FAILURES_BEFORE_RESTART) {
          failures = 0;
          this.report({ type: 'crashed', error: asError(error), restarting: true });
          await this.rejoin();
        } else {
          await this.pause(failures);
        }
      }
    }
  }

  /** Hands one batch to the handler; what it marked is stored even when it throws afterwards. */
  private async handle(key: string, batch: { topic: string; partition: number; messages: IncomingMessage[] }) {
    const position = this.positions.get(key)!;
    let marked: string | undefined;
    let repositioned = false;
    const control: BatchControl = {
      markConsumed: (offset) => {
        if (marked === undefined || BigInt(offset) > BigInt(marked)) marked = offset;
      },
      heartbeat: () => Promise.resolve(),
      isActive: () => !this.stopping && !repositioned,
    };
    await this.slots.acquire();
    try {
      await this.subscription.handleBatch(batch, control);
    } finally {
      this.slots.release();
      repositioned = true;
      // A rejoin during the batch may have moved the position; only a position still in place advances.
      if (marked !== undefined && this.positions.get(key) === position) {
        const next = (BigInt(marked) + 1n).toString();
        this.positions.set(key, next);
        await this.log.commit(this.subscription.groupId, batch.topic, batch.partition, next);
      }
    }
  }

  private async pause(failures: number): Promise<void> {
    const base = Math.min(MAX_RETRY_DELAY_MS, 300 * 2 ** (failures - 1));
    const delay = base / 2 + Math.random() * (base / 2);
    await sleep(delay, undefined, { signal: this.abort.signal }).catch(() => undefined);
  }
}
