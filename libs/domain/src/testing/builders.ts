import type { Address, Geography, Location, LocationInput, ServiceabilityStatus } from '@lx/contracts';

/** Overrides of a location builder; `status` is a shortcut for fiberAccessDetails.serviceability.status, `undefined` removes a field. */
export type LocationOverrides<T> = { [K in keyof T]?: T[K] | undefined } & { status?: ServiceabilityStatus };

/** A valid geography in Denver, CO. */
export function aGeography(overrides: Partial<Geography> = {}): Geography {
  return { country: 'US', region: 'CO', locality: 'Denver', postalCode: '80202', ...overrides };
}

/** A valid street address with only the required parts. */
export function anAddress(overrides: Partial<Address> = {}): Address {
  return withoutUndefined({ streetNumber: '1600', streetName: 'Glenarm', streetType: 'PLACE', ...overrides });
}

/** A valid operator body with geography, address and coordinates and no optional extras. */
export function aLocationInput(overrides: LocationOverrides<LocationInput> = {}): LocationInput {
  const { status, ...fields } = overrides;
  const input: LocationInput = withoutUndefined({
    geography: aGeography(),
    address: anAddress(),
    coordinates: { latitude: 39.7447, longitude: -104.9903 },
    ...fields,
  });
  return status === undefined ? input : withStatus(input, status);
}

/** A valid Location resource: `aLocationInput` plus a fixed id and timestamps. */
export function aLocation(overrides: LocationOverrides<Location> = {}): Location {
  const { id, createdAt, updatedAt, ...input } = overrides;
  return withoutUndefined({
    id: id ?? '0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11',
    createdAt: createdAt ?? '2024-01-15T10:00:00Z',
    updatedAt: updatedAt ?? '2024-01-15T10:00:00Z',
    ...aLocationInput(input),
  });
}

function withStatus<T extends LocationInput>(location: T, status: ServiceabilityStatus): T {
  const fiberAccessDetails = location.fiberAccessDetails ?? {};
  return {
    ...location,
    fiberAccessDetails: { ...fiberAccessDetails, serviceability: { ...fiberAccessDetails.serviceability, status } },
  };
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}
