import { Gauge, type Registry } from 'prom-client';
import { IntervalRound } from '@lx/platform';
import type { EventBus, PartitionBounds, PartitionPosition } from '../event-bus';
import type { Projection } from './projection';

/** How often every replica reads the log's ends and its projection's stored offsets. */
export const PROJECTION_LAG_INTERVAL_MS = 15_000;

const LAG_METRIC = 'projection_consumer_lag_messages';

/**
 * The messages of each partition a projection has not applied yet: the partition's end (`high`) less the offset the
 * read model stored with its last write (from the start of the partition when it stored none yet, and never from
 * before the first message the log still holds). Pure, so the rule is tested on its own.
 */
export function consumerLag(
  bounds: readonly PartitionBounds[],
  stored: readonly PartitionPosition[],
): { topic: string; partition: number; lag: number }[] {
  const next = new Map(stored.map(({ topic, partition, offset }) => [`${topic}/${partition}`, BigInt(offset)]));
  return bounds.map(({ topic, partition, low, high }) => {
    const from = next.get(`${topic}/${partition}`) ?? BigInt(low);
    const start = from > BigInt(low) ? from : BigInt(low);
    const lag = BigInt(high) - start;
    return { topic, partition, lag: lag > 0n ? Number(lag) : 0 };
  });
}

/** What the lag round needs of a projection's consumer: its stored offsets. */
export interface StoredPositions {
  positions(): Promise<PartitionPosition[]>;
}

/**
 * Consumer lag as a metric, `projection_consumer_lag_messages{projection, topic, partition}`: every
 * PROJECTION_LAG_INTERVAL_MS each replica reads the ends of the projection's topics from the log and the offsets the
 * read model stored, so every replica reports the same numbers (take the max across pods). The offsets are the read
 * model's own (consumer_offsets), the true position: Kafka's committed offsets may lag them. A round that cannot reach
 * the log or the database is logged, and the last numbers stay until one succeeds.
 */
export class ProjectionLag extends IntervalRound {
  private readonly gauge: Gauge<'projection' | 'topic' | 'partition'>;

  constructor(
    private readonly projection: Pick<Projection, 'name' | 'topics'>,
    private readonly consumer: StoredPositions,
    private readonly bus: Pick<EventBus, 'partitionBounds'>,
    registry: Registry,
    intervalMs = PROJECTION_LAG_INTERVAL_MS,
  ) {
    super(intervalMs);
    // Several projections of one process share the metric, told apart by label.
    this.gauge =
      (registry.getSingleMetric(LAG_METRIC) as Gauge<'projection' | 'topic' | 'partition'> | undefined) ??
      new Gauge({
        name: LAG_METRIC,
        help: "Messages of a partition the projection has not applied yet (the log's end less the offset stored with the read model)",
        labelNames: ['projection', 'topic', 'partition'],
        registers: [registry],
      });
  }

  protected async round(): Promise<number> {
    let lags: ReturnType<typeof consumerLag>;
    try {
      const bounds = (await Promise.all(this.projection.topics.map((topic) => this.bus.partitionBounds(topic)))).flat();
      lags = consumerLag(bounds, await this.consumer.positions());
    } catch (error) {
      // The round's warning names the projection: a service runs several.
      throw new Error(`lag of ${this.projection.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
    for (const { topic, partition, lag } of lags) {
      this.gauge.set({ projection: this.projection.name, topic, partition: String(partition) }, lag);
    }
    return lags.length;
  }
}
