import { z } from 'zod';
import {
  boundedNumberSchema,
  countryCodeSchema,
  isoDateSchema,
  nonEmptyStringSchema,
  upperSnakeCaseSchema,
  utcDateTimeSchema,
  uuidSchema,
} from '../primitives';
import type { ShapeRule } from '../validation';

/** Serviceability lifecycle: PLANNED future build, CONSTRUCTION being built, ACTIVE available, INACTIVE temporarily unavailable, CANCELLED build cancelled, RETIRED permanently removed. */
export const SERVICEABILITY_STATUSES = [
  'PLANNED',
  'CONSTRUCTION',
  'ACTIVE',
  'INACTIVE',
  'CANCELLED',
  'RETIRED',
] as const;
/** One of the six serviceability statuses. */
export const serviceabilityStatusSchema = z.enum(SERVICEABILITY_STATUSES);
/** One of the six serviceability statuses. */
export type ServiceabilityStatus = z.infer<typeof serviceabilityStatusSchema>;

/** Directional prefixes of a street. */
export const STREET_DIRECTIONS = ['N', 'S', 'E', 'W', 'NE', 'NW', 'SE', 'SW'] as const;
/** One of the eight street directions. */
export const streetDirectionSchema = z.enum(STREET_DIRECTIONS);
/** One of the eight street directions. */
export type StreetDirection = z.infer<typeof streetDirectionSchema>;

/** Layer 2 access protocols as listed by OAF-100 (the spec shows only GPON). */
export const LAYER2_ACCESS_PROTOCOLS = ['GPON', 'EPON', 'XGS-PON', 'XGPON', 'NGPON2', 'ETHERNET', 'OTHER'] as const;
/** One of the OAF-100 layer 2 access protocols. */
export const layer2AccessProtocolSchema = z.enum(LAYER2_ACCESS_PROTOCOLS);
/** One of the OAF-100 layer 2 access protocols. */
export type Layer2AccessProtocol = z.infer<typeof layer2AccessProtocolSchema>;

/**
 * Fiber drop installation status. Neither the spec nor OAF-100 publishes the complete list (values seen:
 * UNDERGROUND_COMPLETE, TEMP_DROP), so any UPPER_SNAKE_CASE token is accepted, as all OAF enumerations are UPPER_CASE.
 */
export const dropStatusSchema = upperSnakeCaseSchema;
/** An UPPER_SNAKE_CASE drop status token. */
export type DropStatus = z.infer<typeof dropStatusSchema>;

/** Where the location is: all four fields required. */
export const geographySchema = z
  .object({
    country: countryCodeSchema,
    region: nonEmptyStringSchema,
    locality: nonEmptyStringSchema,
    postalCode: nonEmptyStringSchema,
  })
  .strict();
/** Where the location is. */
export type Geography = z.infer<typeof geographySchema>;

/** A street address; streetType and subunitType are open vocabularies (AVENUE, St, APT, Suite, …), kept as sent. */
export const addressSchema = z
  .object({
    streetNumber: nonEmptyStringSchema,
    streetName: nonEmptyStringSchema,
    streetDirection: streetDirectionSchema.optional(),
    streetType: nonEmptyStringSchema,
    streetSuffix: nonEmptyStringSchema.optional(),
    subunitType: nonEmptyStringSchema.optional(),
    subunitIdentifier: nonEmptyStringSchema.optional(),
    addressGroupId: uuidSchema.optional(),
  })
  .strict();
/** A street address. */
export type Address = z.infer<typeof addressSchema>;

/** WGS84 position. */
export const coordinatesSchema = z
  .object({ latitude: boundedNumberSchema(-90, 90), longitude: boundedNumberSchema(-180, 180) })
  .strict();
/** WGS84 position. */
export type Coordinates = z.infer<typeof coordinatesSchema>;

/** Fiber service availability. */
export const serviceabilitySchema = z
  .object({ status: serviceabilityStatusSchema, availableDate: isoDateSchema.optional() })
  .strict();
/** Fiber service availability. */
export type Serviceability = z.infer<typeof serviceabilitySchema>;

/** Fiber plant details of a location. */
export const fiberAccessDetailsSchema = z
  .object({
    circuitId: nonEmptyStringSchema.optional(),
    fda: nonEmptyStringSchema.optional(),
    fdh: nonEmptyStringSchema.optional(),
    splitterPort: nonEmptyStringSchema.optional(),
    layer2AccessProtocol: layer2AccessProtocolSchema.optional(),
    dropStatus: dropStatusSchema.optional(),
    serviceability: serviceabilitySchema.optional(),
  })
  .strict();
/** Fiber plant details of a location. */
export type FiberAccessDetails = z.infer<typeof fiberAccessDetailsSchema>;

/** A scalar custom field value. */
export type CustomFieldScalar = string | number | boolean;
/** A custom field value: a scalar or an array of scalars (mixed arrays allowed, nesting not). */
export type CustomFieldValue = CustomFieldScalar | CustomFieldScalar[];

// Number.isFinite does not convert: it is true for finite numbers only.
const isCustomFieldScalar = (value: unknown): value is CustomFieldScalar =>
  typeof value === 'string' || typeof value === 'boolean' || Number.isFinite(value);

/** A custom field value; array items are checked one by one so the issue names the item (`customFields.tags[2]`). */
export const customFieldValueSchema = z.custom<CustomFieldValue>().superRefine((value, ctx) => {
  if (isCustomFieldScalar(value)) return;
  if (!Array.isArray(value)) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, params: { rule: 'customFieldValue' } satisfies ShapeRule });
    return;
  }
  value.forEach((item: unknown, index) => {
    if (!isCustomFieldScalar(item)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: [index],
        params: { rule: 'customFieldItem' } satisfies ShapeRule,
      });
    }
  });
});

/** Operator-defined fields; RSPs keep them even when they do not use them. */
export const customFieldsSchema = z.record(z.string(), customFieldValueSchema);
/** Operator-defined fields. */
export type CustomFields = z.infer<typeof customFieldsSchema>;

/**
 * The body the operator writes: a Location without the server-owned id, createdAt and updatedAt. Only the shape is
 * checked here; cross-field rules (address or coordinates, subunitIdentifier with subunitType) live in `@lx/domain`.
 */
export const locationInputSchema = z
  .object({
    notes: nonEmptyStringSchema.optional(),
    locationGroupId: uuidSchema.optional(),
    geography: geographySchema,
    address: addressSchema.optional(),
    coordinates: coordinatesSchema.optional(),
    fiberAccessDetails: fiberAccessDetailsSchema.optional(),
    customFields: customFieldsSchema.optional(),
  })
  .strict();
/** The body the operator writes. */
export type LocationInput = z.infer<typeof locationInputSchema>;

/** The Location resource as returned to RSPs; optional fields are absent, never null. */
export const locationSchema = z
  .object({ id: uuidSchema, createdAt: utcDateTimeSchema, updatedAt: utcDateTimeSchema })
  .merge(locationInputSchema)
  .strict();
/** The Location resource as returned to RSPs. */
export type Location = z.infer<typeof locationSchema>;

/** A sparse copy of a nested record: only changed leaves with their new values, `null` for a removed field; arrays are leaves. */
export type SparseChanges<T> = {
  [K in keyof T]?:
    | (NonNullable<T[K]> extends readonly unknown[]
        ? T[K]
        : NonNullable<T[K]> extends object
          ? SparseChanges<NonNullable<T[K]>>
          : T[K])
    | null;
};

/** `modifiedFields` of a LOCATION_UPDATED event: e.g. `{ fiberAccessDetails: { serviceability: { status: 'ACTIVE' } } }`. */
export type LocationModifiedFields = SparseChanges<LocationInput>;

/** Validates `modifiedFields` against the Location's nesting; id, createdAt and updatedAt are never part of it. */
export const locationModifiedFieldsSchema = sparseChangesSchema(locationInputSchema) as z.ZodType<
  LocationModifiedFields,
  z.ZodTypeDef,
  unknown
>;

function sparseChangesSchema(schema: z.ZodTypeAny): z.ZodTypeAny {
  const inner: z.ZodTypeAny = schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodTypeAny) : schema;
  if (inner instanceof z.ZodObject) {
    const fields = Object.entries(inner.shape as z.ZodRawShape).map(([key, field]) => [
      key,
      sparseChangesSchema(field).nullable().optional(),
    ]);
    return z.object(Object.fromEntries(fields)).strict();
  }
  if (inner instanceof z.ZodRecord)
    return z.record(inner.keySchema as z.ZodString, (inner.valueSchema as z.ZodTypeAny).nullable());
  return inner;
}
