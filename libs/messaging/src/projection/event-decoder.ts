import { EVENT_CATALOG, type EventType, KAFKA_HEADERS, validateEvent } from '@lx/contracts';
import type { IncomingMessage } from '../event-bus';
import type { ProjectedEvent } from './projection';

/** What a consumed message is to a projection. */
export type DecodedMessage =
  | { kind: 'event'; event: ProjectedEvent }
  /** A valid event the projection has no use for. */
  | { kind: 'ignored'; type: EventType }
  /** Cannot be applied whatever is retried: it goes to the dead-letter topic. */
  | { kind: 'invalid'; reason: string };

const VERSION = /^[1-9]\d{0,9}$/;
const MAX_VERSION = 2_147_483_647;
const MAX_REASON = 1_000;

/**
 * Turns a message into a projected event: a JSON event envelope that validates against the contracts, published on
 * its type's topic, with a positive aggregate version header. Pure; never throws.
 */
export function decodeMessage(message: IncomingMessage, eventTypes: ReadonlySet<EventType>): DecodedMessage {
  if (message.value === null || message.value.length === 0) return invalid('the message has no value');
  let body: unknown;
  try {
    body = JSON.parse(message.value.toString('utf8'));
  } catch (error) {
    return invalid(`the value is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const validated = validateEvent(body);
  if (!validated.ok) return invalid(validated.issues.map((issue) => issue.message).join('; '));
  const event = validated.value;
  const topic = EVENT_CATALOG[event.type].topic;
  if (topic !== message.topic) return invalid(`${event.type} events belong on ${topic}, not on ${message.topic}`);
  if (!eventTypes.has(event.type)) return { kind: 'ignored', type: event.type };
  const header = message.headers[KAFKA_HEADERS.aggregateVersion];
  const version = header !== undefined && VERSION.test(header) ? Number(header) : NaN;
  if (!(version <= MAX_VERSION)) {
    return invalid(`header ${KAFKA_HEADERS.aggregateVersion} must be a positive integer, got ${JSON.stringify(header)}`);
  }
  return {
    kind: 'event',
    event: { event, version, topic: message.topic, partition: message.partition, offset: message.offset },
  };
}

function invalid(reason: string): DecodedMessage {
  return { kind: 'invalid', reason: reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON)}…` : reason };
}
