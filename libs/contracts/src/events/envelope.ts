import { z } from '../openapi/extend-zod';
import { nonEmptyStringSchema, utcDateTimeSchema, uuidSchema } from '../primitives';

/** The OAF-100 event envelope: `data` is the complete resource after the change, `modifiedFields` the sparse diff on updates. */
export interface EventEnvelope<TType extends string = string, TData = unknown, TModified = never> {
  /** Event UUID; receivers dedupe on it. */
  id: string;
  /** UPPER_SNAKE_CASE `{RESOURCE}_{ACTION}`. */
  type: TType;
  /** When it happened, UTC with `Z`. */
  timestamp: string;
  /** Name of the emitting system. */
  source: string;
  data: TData;
  modifiedFields?: TModified;
}

/** Schema of one event type's envelope; without a `modifiedFields` schema the field is rejected. */
export function eventEnvelopeSchema<
  TType extends string,
  TData extends z.ZodTypeAny,
  TModified extends z.ZodTypeAny = z.ZodNever,
>(type: TType, data: TData, modifiedFields?: TModified) {
  // Without a `modifiedFields` schema the field is left out, and `strict` refuses it: a generator cannot turn a
  // never-valid property (`not: {}`) into a type.
  return z
    .object({
      id: uuidSchema,
      type: z.literal(type),
      timestamp: utcDateTimeSchema,
      source: nonEmptyStringSchema,
      data,
      ...((modifiedFields === undefined ? {} : { modifiedFields: modifiedFields.optional() }) as {
        modifiedFields: z.ZodOptional<TModified>;
      }),
    })
    .strict();
}
