import { randomUUID } from 'node:crypto';
import {
  type AddressGroup,
  type AnyEvent,
  EVENT_CATALOG,
  type EventType,
  KAFKA_HEADERS,
  type Location,
  type LocationGroup,
} from '@lx/contracts';
import { aLocation, type LocationOverrides } from '@lx/domain/testing';
import { waitFor } from '../wait-for';

/**
 * The part of @lx/messaging's EventBus these helpers use, stated here because @lx/testing cannot depend on
 * @lx/messaging (whose own tests use @lx/testing).
 */
export interface TestEventBus {
  publish(
    topic: string,
    messages: readonly { key: string; value: string; headers: Record<string, string> }[],
  ): Promise<void>;
  partitionBounds(topic: string): Promise<readonly { topic: string; partition: number; high: string }[]>;
}

/**
 * `aLocation` of `@lx/domain/testing` as a new location that tests publish: a fresh id and the current time, so
 * tests sharing topics never collide. Overrides as there.
 */
export function aNewLocation(overrides: LocationOverrides<Location> = {}): Location {
  const now = new Date().toISOString();
  return aLocation({ id: randomUUID(), createdAt: now, updatedAt: now, ...overrides });
}

/**
 * Publishes an event of `type` with `data` as the producer would (envelope, key = aggregate id, version header); the
 * envelope's timestamp is now unless `extra.timestamp` gives one.
 */
export async function publish(
  bus: TestEventBus,
  type: EventType,
  data: Location | LocationGroup | AddressGroup,
  version: number,
  extra: { modifiedFields?: unknown; timestamp?: string } = {},
): Promise<{ id: string }> {
  const envelope = {
    id: randomUUID(),
    type,
    timestamp: new Date().toISOString(),
    source: 'it-read-side',
    data,
    ...extra,
  };
  await bus.publish(EVENT_CATALOG[type].topic, [
    { key: data.id, value: JSON.stringify(envelope), headers: { [KAFKA_HEADERS.aggregateVersion]: String(version) } },
  ]);
  return { id: envelope.id };
}

/** Waits until the projection of `groupId` has applied everything published so far on `topics` (stored offsets). */
export async function waitUntilCaughtUp(
  bus: TestEventBus,
  db: {
    query(
      text: string,
      values: unknown[],
    ): Promise<{ rows: { topic: string; partition: number; next_offset: string }[] }>;
  },
  groupId: string,
  topics: readonly string[],
  timeoutMs = 60_000,
): Promise<void> {
  const ends = (await Promise.all(topics.map((topic) => bus.partitionBounds(topic)))).flat();
  await waitFor(
    `${groupId} to catch up`,
    async () => {
      const { rows } = await db.query(
        `SELECT topic, partition, next_offset FROM consumer_offsets WHERE group_id = $1`,
        [groupId],
      );
      return ends.every(
        (end) =>
          BigInt(end.high) === 0n ||
          rows.some(
            (row) =>
              row.topic === end.topic && row.partition === end.partition && BigInt(row.next_offset) >= BigInt(end.high),
          ),
      );
    },
    timeoutMs,
  );
}

/**
 * An event as the projection consumer hands it to `Projection.apply` (the shape of @lx/messaging's ProjectedEvent,
 * stated here for the same reason as TestEventBus), for tests that call apply directly.
 */
export interface TestProjectedEvent {
  event: AnyEvent;
  version: number;
  topic: string;
  partition: number;
  offset: string;
}

/**
 * The event of `type` with `data` at aggregate `version`, as decoded from its topic (envelope as `publish` writes it),
 * timed now unless `timestamp` is given.
 */
export function projectedEvent(
  type: EventType,
  data: Location | LocationGroup | AddressGroup,
  version: number,
  offset = '0',
  timestamp = new Date().toISOString(),
): TestProjectedEvent {
  const event = { id: randomUUID(), type, timestamp, source: 'it-read-side', data };
  return { event: event as AnyEvent, version, topic: EVENT_CATALOG[type].topic, partition: 0, offset };
}

/** Runs `work` in one transaction of `db` (as the consumer runs apply), rolled back if it throws. */
export async function inTransaction<T>(
  db: { query(text: string): Promise<unknown> },
  work: () => Promise<T>,
): Promise<T> {
  await db.query('BEGIN');
  try {
    const result = await work();
    await db.query('COMMIT');
    return result;
  } catch (error) {
    await db.query('ROLLBACK');
    throw error;
  }
}
