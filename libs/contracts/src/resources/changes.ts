import { eventSchema } from '../events/event-types';
import { CHANGE_EVENT_TYPES, type ChangeEventType } from '../events/webhooks';
import { z } from '../openapi/extend-zod';

/**
 * The change feed, `GET /locations/changes`: every location and group change (CHANGE_EVENT_TYPES) in the order the
 * feed committed them, each exactly as the webhook to `/locations/events` describes it (changeDeliveryOf).
 */
export const CHANGE_FEED = {
  path: '/locations/changes',
  /** The opaque cursor of a previous reply's `next`; absent: from the oldest change still retained. */
  afterParameter: 'after',
  limitParameter: 'limit',
  defaultLimit: 100,
  maxLimit: 1000,
  /** Shortest retention an operator may configure (CHANGE_FEED_RETENTION_DAYS), in days. */
  minRetentionDays: 7,
} as const;

/** Query parameters of GET /locations/changes; any other is refused (INVALID_FILTER). */
export const CHANGE_FEED_PARAMETERS = [CHANGE_FEED.afterParameter, CHANGE_FEED.limitParameter] as const;

/** One change event as an RSP receives it (the webhook body's `event`, a feed item's): the envelope and its version. */
export function changeEventSchema(type: ChangeEventType): z.AnyZodObject {
  return (eventSchema(type) as unknown as z.AnyZodObject).extend({
    version: z
      .number()
      .int()
      .min(1)
      .openapi({
        description:
          "The resource's version after this event (1 at its creation, one more per change), also in X-Event-Sequence: " +
          'keep the highest, discard an older or repeated one.',
      }),
  });
}

/** One change: the envelope with the version of its location or group after the event (as a webhook body). */
export const changeEventDeliverySchema = z
  .object({
    event: z.union(
      CHANGE_EVENT_TYPES.map((type) => changeEventSchema(type)) as unknown as [
        z.ZodTypeAny,
        z.ZodTypeAny,
        ...z.ZodTypeAny[],
      ],
    ),
  })
  .strict();

/** Reply of GET /locations/changes. */
export const changeFeedPageSchema = z
  .object({
    changes: z.array(changeEventDeliverySchema),
    /** Where to continue: the position after the last change of this page (or the position asked for, if none). */
    next: z.string().min(1),
    /** Whether more changes could be read at once; false: poll `next` again later. */
    hasMore: z.boolean(),
  })
  .strict();
/** Reply of GET /locations/changes. */
export type ChangeFeedPage = z.infer<typeof changeFeedPageSchema>;
