import { Logger } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { Counter, Histogram, type Registry } from 'prom-client';
import { dlqTopicSpec, type EventType, KAFKA_HEADERS, type TopicName } from '@lx/contracts';
import { checkOut } from '@lx/platform';
import type {
  AssignedPartition,
  BatchControl,
  ConsumerEvent,
  ConsumerHandle,
  EventBus,
  IncomingBatch,
  IncomingMessage,
  PartitionPosition,
} from '../event-bus';
import { traceProcessing } from '../message-tracing';
import { lockNextOffset, storedPositions, storeNextOffset, storeStartOffset } from './consumer-offsets';
import { decodeMessage } from './event-decoder';
import { classifyFailure, describeFailure } from './failure-classification';
import type { ProjectedEvent, Projection } from './projection';

export interface ProjectionConsumerOptions {
  /** Kafka consumer group, also the key of the stored offsets. */
  groupId: string;
  /** Most messages applied in one transaction. */
  batchSize: number;
  /**
   * Partitions applied at the same time, each in its own transaction (default 1). More overlap database round trips
   * (a replay reads much faster); the projection must then tolerate concurrent transactions on other partitions.
   */
  concurrency?: number;
  /** Whose dead-letter topics (`<topic>.<group>.dlq`) receive invalid messages; defaults to groupId. */
  deadLetterGroupId?: string;
  /** Where the consumer's metrics go; none when absent. */
  registry?: Registry;
  /** How long failures must go on before health() reports failing; default 5 s, so one retried blip is not an outage. */
  failingAfterMs?: number;
  /**
   * Where a partition with no stored offset starts: 'beginning' (default; a read model replays the whole log) or
   * 'end': where the group's offsets committed to the log stand (a consumer of the group that kept no offsets of its
   * own, such as an earlier version), else the end of the partition as it stood when this group first met it; stored
   * at once, so that a restart before the first message still starts there (nothing published after that moment is
   * passed over).
   */
  startAt?: 'beginning' | 'end';
}

/** What readiness reports about a projection consumer. */
export interface ProjectionHealth {
  state: 'starting' | 'joined' | 'failing' | 'stopped';
  /** The last failure while it still stands (cleared by the next applied batch). */
  failure?: string;
}

interface Metrics {
  applied: Counter<'projection'>;
  deadLettered: Counter<'projection'>;
  duplicates: Counter<'projection'>;
  batchSeconds: Histogram<'projection'>;
}

/**
 * Feeds a projection from the event log with exactly-once effect.
 *
 * Each run of messages of one partition is applied in ONE Postgres transaction that also stores the partition's next
 * offset in consumer_offsets. Inside it the stored offset is read FOR UPDATE and messages below it are skipped, so a
 * redelivery (the Kafka commit lags the Postgres one, a rebalance, a zombie member) changes nothing; on assignment the
 * consumer seeks to the stored offsets, so Kafka's committed offsets only save re-reading. As a second line, every
 * projection is idempotent by aggregate version, which makes the read model correct even for a consumer group that
 * has never seen it (a rebuilt table taking over). A crash at any instant therefore neither loses nor repeats an
 * effect.
 *
 * Failures are classified: a duplicate is skipped; an invalid message (not JSON, fails validateEvent, on the wrong
 * topic, no version header) goes to the dead-letter topic with its original bytes and the reason in headers, and its
 * offset is stored; a database error about one event's data is isolated by retrying message by message and that
 * event is dead-lettered; anything else is transient: the batch is rethrown for kafkajs to retry, and readiness
 * reports the projection as failing until a batch applies again.
 */
export class ProjectionConsumer {
  private readonly logger: Logger;
  private readonly eventTypes: ReadonlySet<EventType>;
  private readonly deadLetterGroupId: string;
  private readonly metrics?: Metrics;
  private handle?: ConsumerHandle;
  /** Dead-letter topics known to exist; each is created when its first letter is due, so none exist without letters. */
  private readonly deadLetterTopics = new Set<string>();
  private state: 'starting' | 'joined' | 'stopped' = 'starting';
  /** Partitions (or the consumer itself, '*') failing now: since when, and why. Cleared by the next success. */
  private readonly failures = new Map<string, { since: number; failure: string }>();

  constructor(
    private readonly pool: Pool,
    private readonly bus: EventBus,
    private readonly projection: Projection,
    private readonly options: ProjectionConsumerOptions,
  ) {
    this.logger = new Logger(`ProjectionConsumer:${projection.name}`);
    this.eventTypes = new Set(projection.eventTypes);
    this.deadLetterGroupId = options.deadLetterGroupId ?? options.groupId;
    if (options.registry) {
      this.metrics = createMetrics(options.registry);
      // The projection's series from the start, at 0: its first dead letter after a restart is then an increase an
      // alert sees, not the birth of a series at 1.
      const labels = { projection: projection.name };
      for (const counter of [this.metrics.applied, this.metrics.deadLettered, this.metrics.duplicates]) {
        counter.inc(labels, 0);
      }
    }
  }

  get groupId(): string {
    return this.options.groupId;
  }

  /** Joins the group; consumption continues in the background until stop(). */
  async start(): Promise<void> {
    this.handle = await this.bus.subscribeBatches({
      groupId: this.options.groupId,
      topics: this.projection.topics,
      fromBeginning: true,
      partitionsConcurrently: this.options.concurrency ?? 1,
      handleBatch: (batch, control) => this.handleBatch(batch, control),
      positionsFor: (assigned) => this.positionsFor(assigned),
      onEvent: (event) => this.onConsumerEvent(event),
    });
  }

  async stop(): Promise<void> {
    await this.handle?.stop();
    this.state = 'stopped';
  }

  /** Failing once some partition (or the consumer) has failed without a success for failingAfterMs. */
  health(): ProjectionHealth {
    const threshold = Date.now() - (this.options.failingAfterMs ?? 5_000);
    for (const { since, failure } of this.failures.values()) {
      if (since <= threshold) return { state: 'failing', failure };
    }
    return { state: this.state };
  }

  private failed(key: string, error: unknown): void {
    const since = this.failures.get(key)?.since ?? Date.now();
    this.failures.set(key, { since, failure: describeFailure(error) });
  }

  /** Where this group's read model stands, per partition (the offsets stored with it). */
  positions(): Promise<PartitionPosition[]> {
    return storedPositions(this.pool, this.options.groupId);
  }

  private async handleBatch(batch: IncomingBatch, control: BatchControl): Promise<void> {
    for (let start = 0; start < batch.messages.length; start += this.options.batchSize) {
      if (!control.isActive()) return;
      const traced = traceProcessing(
        { group: this.options.groupId, projection: this.projection.name },
        this.bus.topicOnLog(batch.topic),
        batch.messages.slice(start, start + this.options.batchSize),
      );
      const { messages } = traced;
      const timer = this.metrics?.batchSeconds.startTimer({ projection: this.projection.name });
      try {
        await this.applyRun(batch.topic, batch.partition, messages);
        traced.end();
      } catch (error) {
        traced.end(error);
        this.failed(`${batch.topic}/${batch.partition}`, error);
        this.logger.warn(
          { topic: batch.topic, partition: batch.partition, offset: messages[0]?.offset, err: describeFailure(error) },
          'Projection batch failed; it will be retried',
        );
        throw error;
      }
      timer?.();
      this.failures.delete(`${batch.topic}/${batch.partition}`);
      control.markConsumed(messages[messages.length - 1]!.offset);
      await control.heartbeat();
    }
  }

  /** Applies a run of messages; on a permanent failure, finds the message at fault by applying them one by one. */
  private async applyRun(topic: string, partition: number, messages: readonly IncomingMessage[]): Promise<void> {
    try {
      await this.transaction((client) => this.applyInTransaction(client, topic, partition, messages));
    } catch (error) {
      if (classifyFailure(error) !== 'permanent') throw error;
      if (messages.length > 1) {
        for (const message of messages) await this.applyRun(topic, partition, [message]);
        return;
      }
      const [message] = messages as [IncomingMessage];
      await this.deadLetter(topic, [{ message, reason: `cannot be applied: ${describeFailure(error)}` }]);
      await this.transaction((client) => this.skipInTransaction(client, message));
    }
  }

  private async applyInTransaction(
    client: PoolClient,
    topic: string,
    partition: number,
    messages: readonly IncomingMessage[],
  ): Promise<void> {
    const next = await lockNextOffset(client, this.options.groupId, topic, partition);
    const fresh = messages.filter((message) => BigInt(message.offset) >= next);
    this.metrics?.duplicates.inc({ projection: this.projection.name }, messages.length - fresh.length);
    const last = fresh[fresh.length - 1];
    if (last === undefined) return;

    const events: ProjectedEvent[] = [];
    const invalid: { message: IncomingMessage; reason: string }[] = [];
    for (const message of fresh) {
      const decoded = decodeMessage(message, this.eventTypes);
      if (decoded.kind === 'event') events.push(decoded.event);
      else if (decoded.kind === 'invalid') invalid.push({ message, reason: decoded.reason });
    }
    if (events.length > 0) await this.projection.apply(client, events);
    // After apply (a run that fails is retried message by message, which publishes each letter once) and before the
    // offset commits: if the commit fails, a letter may be published again (dead letters are at least once).
    await this.deadLetter(topic, invalid);
    await storeNextOffset(client, this.options.groupId, topic, partition, BigInt(last.offset) + 1n);
    this.metrics?.applied.inc({ projection: this.projection.name }, events.length);
  }

  private async skipInTransaction(client: PoolClient, message: IncomingMessage): Promise<void> {
    const next = await lockNextOffset(client, this.options.groupId, message.topic, message.partition);
    if (BigInt(message.offset) < next) return;
    await storeNextOffset(client, this.options.groupId, message.topic, message.partition, BigInt(message.offset) + 1n);
  }

  private async deadLetter(topic: string, letters: readonly { message: IncomingMessage; reason: string }[]) {
    if (letters.length === 0) return;
    for (const { message, reason } of letters) {
      this.logger.error(
        { topic, partition: message.partition, offset: message.offset, key: message.key, reason },
        'Message dead-lettered',
      );
    }
    const deadLetterTopic = dlqTopicSpec(topic as TopicName, this.deadLetterGroupId);
    if (!this.deadLetterTopics.has(deadLetterTopic.name)) {
      await this.bus.ensureTopics([deadLetterTopic]);
      this.deadLetterTopics.add(deadLetterTopic.name);
    }
    await this.bus.publish(
      deadLetterTopic.name,
      letters.map(({ message, reason }) => ({
        key: message.key ?? '',
        value: message.value ?? Buffer.alloc(0),
        headers: {
          ...message.headers,
          [KAFKA_HEADERS.dlqSourceTopic]: this.bus.topicOnLog(message.topic),
          [KAFKA_HEADERS.dlqSourcePartition]: String(message.partition),
          [KAFKA_HEADERS.dlqSourceOffset]: message.offset,
          [KAFKA_HEADERS.dlqError]: reason,
        },
      })),
    );
    this.metrics?.deadLettered.inc({ projection: this.projection.name }, letters.length);
  }

  /**
   * Assigned partitions start where the read model stands: the stored offset, or, when nothing was stored (a new or
   * rebuilt read model), the start of the log — or its end, stored at once, for `startAt: 'end'` — whatever Kafka
   * has committed for the group.
   */
  private async positionsFor(assigned: readonly AssignedPartition[]): Promise<PartitionPosition[]> {
    const stored = await this.positions();
    const positions: PartitionPosition[] = [];
    const unstored: PartitionPosition[] = [];
    const boundsByTopic = new Map<string, Map<number, { low: string; high: string }>>();
    for (const { topic, partition } of assigned) {
      const known = stored.find((position) => position.topic === topic && position.partition === partition);
      if (known) {
        positions.push(known);
        continue;
      }
      let bounds = boundsByTopic.get(topic);
      if (bounds === undefined) {
        const committed =
          this.options.startAt === 'end' ? await this.bus.groupOffsets(this.options.groupId, topic) : [];
        bounds = new Map(
          (await this.bus.partitionBounds(topic)).map((each) => [
            each.partition,
            { ...each, high: committed.find((c) => c.partition === each.partition)?.offset ?? each.high },
          ]),
        );
        boundsByTopic.set(topic, bounds);
      }
      const atEnd = this.options.startAt === 'end';
      const offset = (atEnd ? bounds.get(partition)?.high : bounds.get(partition)?.low) ?? '0';
      if (atEnd) unstored.push({ topic, partition, offset });
      else positions.push({ topic, partition, offset });
    }
    if (unstored.length > 0) positions.push(...(await this.storeStartPositions(unstored)));
    return positions;
  }

  /** Stores start positions where none is stored yet (another member may have stored one first); returns what holds. */
  private async storeStartPositions(start: readonly PartitionPosition[]): Promise<PartitionPosition[]> {
    await this.transaction(async (client) => {
      for (const position of start) await storeStartOffset(client, this.options.groupId, position);
    });
    const stored = await this.positions();
    return start.map(
      (position) =>
        stored.find((each) => each.topic === position.topic && each.partition === position.partition) ?? position,
    );
  }

  private onConsumerEvent(event: ConsumerEvent): void {
    switch (event.type) {
      case 'joined':
        // A member that (re)joined is consuming again; a batch that still fails marks it failing again.
        this.state = 'joined';
        this.failures.clear();
        this.logger.log({ groupId: this.options.groupId, assigned: event.assigned.length }, 'Joined consumer group');
        break;
      case 'crashed':
        this.failed('*', event.error);
        this.logger.error(
          { groupId: this.options.groupId, err: describeFailure(event.error), restarting: event.restarting },
          'Projection consumer crashed',
        );
        break;
      case 'stopped':
        this.state = 'stopped';
        break;
    }
  }

  private async transaction(work: (client: PoolClient) => Promise<void>): Promise<void> {
    const { client, release } = await checkOut(this.pool);
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      await work(client);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        // The connection is unusable; destroy it instead of returning it to the pool.
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
      throw error;
    } finally {
      release(broken);
    }
  }
}

function createMetrics(registry: Registry): Metrics {
  const registers = [registry];
  const labelNames = ['projection'] as const;
  // Several projections of one process share the metrics, told apart by label.
  const existing = registry.getSingleMetric('projection_events_applied_total');
  if (existing) {
    return {
      applied: existing as Counter<'projection'>,
      deadLettered: registry.getSingleMetric('projection_dead_letters_total') as Counter<'projection'>,
      duplicates: registry.getSingleMetric('projection_redelivered_messages_total') as Counter<'projection'>,
      batchSeconds: registry.getSingleMetric('projection_batch_duration_seconds') as Histogram<'projection'>,
    };
  }
  return {
    applied: new Counter({
      name: 'projection_events_applied_total',
      help: 'Events handed to a projection (including those its version guard found stale)',
      labelNames,
      registers,
    }),
    deadLettered: new Counter({
      name: 'projection_dead_letters_total',
      help: 'Messages sent to a dead-letter topic',
      labelNames,
      registers,
    }),
    duplicates: new Counter({
      name: 'projection_redelivered_messages_total',
      help: 'Messages skipped because their offset was already applied',
      labelNames,
      registers,
    }),
    batchSeconds: new Histogram({
      name: 'projection_batch_duration_seconds',
      help: 'Time to apply one run of messages in one transaction',
      labelNames,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
  };
}
