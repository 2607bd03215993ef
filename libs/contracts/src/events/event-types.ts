import { z } from 'zod';
import { addressGroupSchema, locationGroupSchema } from '../resources/groups';
import { locationModifiedFieldsSchema, locationSchema } from '../resources/location';
import { validate, type ValidationResult } from '../validation';
import { eventEnvelopeSchema, type EventEnvelope } from './envelope';
import {
  clientDataSchema,
  exportCompletedDataSchema,
  exportFailedDataSchema,
  exportRequestedDataSchema,
  webhookEndpointDisabledDataSchema,
} from './payloads';
import { TOPICS, type TopicName } from './topics';

/** Where an event type is published and what its `data` (and, on updates, `modifiedFields`) look like. */
export interface EventSpec {
  readonly topic: TopicName;
  readonly data: z.ZodTypeAny;
  readonly modifiedFields?: z.ZodTypeAny;
}

const {
  locationEvents,
  locationGroupEvents,
  addressGroupEvents,
  exportRequests,
  exportEvents,
  clientEvents,
  webhookEvents,
} = TOPICS;

/** Every event type with its topic and payload schema; `data` is always the complete resource after the change. */
export const EVENT_CATALOG = {
  /** A location was created. Producer: location-command. Consumers: location-query, statistics-projection, webhook-dispatcher. */
  LOCATION_CREATED: { topic: locationEvents.name, data: locationSchema },
  /** A location changed; modifiedFields holds the changed leaves. Producer: location-command. Consumers: location-query, statistics-projection, webhook-dispatcher. */
  LOCATION_UPDATED: { topic: locationEvents.name, data: locationSchema, modifiedFields: locationModifiedFieldsSchema },
  /** A location group was created. Producer: location-command. Consumers: location-query. */
  LOCATION_GROUP_CREATED: { topic: locationGroupEvents.name, data: locationGroupSchema },
  /** A location group was renamed. Producer: location-command. Consumers: location-query. */
  LOCATION_GROUP_UPDATED: { topic: locationGroupEvents.name, data: locationGroupSchema },
  /** A location group was deleted; data is its last state. Producer: location-command. Consumers: location-query. */
  LOCATION_GROUP_DELETED: { topic: locationGroupEvents.name, data: locationGroupSchema },
  /** An address group was created. Producer: location-command. Consumers: location-query. */
  ADDRESS_GROUP_CREATED: { topic: addressGroupEvents.name, data: addressGroupSchema },
  /** An address group was renamed. Producer: location-command. Consumers: location-query. */
  ADDRESS_GROUP_UPDATED: { topic: addressGroupEvents.name, data: addressGroupSchema },
  /** An address group was deleted; data is its last state. Producer: location-command. Consumers: location-query. */
  ADDRESS_GROUP_DELETED: { topic: addressGroupEvents.name, data: addressGroupSchema },
  /** An RSP's export request was accepted (PENDING). Producer: export-worker API. Consumers: export-worker generator. */
  EXPORT_REQUESTED: { topic: exportRequests.name, data: exportRequestedDataSchema },
  /** An export file is ready to download (COMPLETED). Producer: export-worker. Consumers: webhook-dispatcher. */
  EXPORT_COMPLETED: { topic: exportEvents.name, data: exportCompletedDataSchema },
  /** An export could not be generated (FAILED). Producer: export-worker. Consumers: webhook-dispatcher. */
  EXPORT_FAILED: { topic: exportEvents.name, data: exportFailedDataSchema },
  /** An API client was registered. Producer: auth. Consumers: webhook-dispatcher. */
  CLIENT_REGISTERED: { topic: clientEvents.name, data: clientDataSchema },
  /** A client's name, scopes or webhook URL changed. Producer: auth. Consumers: webhook-dispatcher. */
  CLIENT_UPDATED: { topic: clientEvents.name, data: clientDataSchema },
  /** A client's secret was rotated; data carries the new sealed webhook secret. Producer: auth. Consumers: webhook-dispatcher. */
  CLIENT_SECRET_ROTATED: { topic: clientEvents.name, data: clientDataSchema },
  /** A client was disabled (enabled false); its deliveries stop. Producer: auth. Consumers: webhook-dispatcher. */
  CLIENT_DISABLED: { topic: clientEvents.name, data: clientDataSchema },
  /** A webhook endpoint answered 410 Gone and was disabled. Producer: webhook-dispatcher. Consumers: none in this system (for operations tooling). */
  WEBHOOK_ENDPOINT_DISABLED: { topic: webhookEvents.name, data: webhookEndpointDisabledDataSchema },
} as const satisfies Record<string, EventSpec>;

type Catalog = typeof EVENT_CATALOG;

/** An UPPER_SNAKE_CASE event type. */
export type EventType = keyof Catalog;

/** Every event type, in catalog order. */
export const EVENT_TYPES = Object.keys(EVENT_CATALOG) as [EventType, ...EventType[]];

/** One of the event types. */
export const eventTypeSchema = z.enum(EVENT_TYPES);

/** The `data` of an event type. */
export type EventData<T extends EventType> = z.infer<Catalog[T]['data']>;

/** The `modifiedFields` of an event type; `never` where it has none. */
export type EventModifiedFields<T extends EventType> = Catalog[T] extends { modifiedFields: z.ZodType<infer M> }
  ? M
  : never;

/** The full event of one type (or, for a union of types, the union of their events). */
export type EventOf<T extends EventType = EventType> = {
  [K in T]: EventEnvelope<K, EventData<K>, EventModifiedFields<K>>;
}[T];

/** Any event of the catalog, discriminated by `type`. */
export type AnyEvent = EventOf<EventType>;

const schemas = new Map<EventType, z.ZodTypeAny>();

/** The envelope schema of one event type. */
export function eventSchema<T extends EventType>(type: T): z.ZodType<EventOf<T>, z.ZodTypeDef, unknown> {
  let schema = schemas.get(type);
  if (schema === undefined) {
    const spec: EventSpec = EVENT_CATALOG[type];
    schema = eventEnvelopeSchema(type, spec.data, spec.modifiedFields);
    schemas.set(type, schema);
  }
  return schema as z.ZodType<EventOf<T>, z.ZodTypeDef, unknown>;
}

const eventTypeOnlySchema = z.object({ type: eventTypeSchema }).passthrough();

/** Validates any event: first its `type`, then the whole envelope against that type's schema. */
export function validateEvent(value: unknown): ValidationResult<AnyEvent> {
  const head = validate(eventTypeOnlySchema, value);
  return head.ok ? validate(eventSchema(head.value.type), value) : head;
}
