import {
  addressSchema,
  coordinatesSchema,
  fiberAccessDetailsSchema,
  geographySchema,
  type Location,
  locationSchema,
  serviceabilitySchema,
} from '@lx/contracts';

type Json = Record<string, unknown>;

const keysOf = (schema: { shape: object }) => Object.keys(schema.shape);
const ROOT = keysOf(locationSchema);
const NESTED: Readonly<Record<string, readonly string[]>> = {
  geography: keysOf(geographySchema),
  address: keysOf(addressSchema),
  coordinates: keysOf(coordinatesSchema),
  fiberAccessDetails: keysOf(fiberAccessDetailsSchema),
};
const SERVICEABILITY = keysOf(serviceabilitySchema);

function ordered(value: Json, keys: readonly string[], nested?: (key: string, field: unknown) => unknown): Json {
  const result: Json = {};
  for (const key of keys) {
    const field = value[key];
    if (field !== undefined) result[key] = nested ? nested(key, field) : field;
  }
  return result;
}

/**
 * A valid Location with its fields in the order the contracts declare them (id, createdAt, updatedAt, notes, …,
 * geography.country, …), whatever order its producer wrote them in: the read model stores and serves exactly this
 * text, so equal locations are byte-equal replies. customFields keep the operator's order.
 */
export function canonicalLocation(location: Location): Location {
  return ordered(location, ROOT, (key, field) => {
    const keys = NESTED[key];
    if (keys === undefined) return field;
    return ordered(field as Json, keys, (inner, value) =>
      key === 'fiberAccessDetails' && inner === 'serviceability' ? ordered(value as Json, SERVICEABILITY) : value,
    );
  }) as unknown as Location;
}
