import type { z } from 'zod';
import type { Location } from '../resources/location';
import { validate, type ValidationIssue } from '../validation';

/** A complete, valid Location using every field, for the contracts' own specs. */
export const sampleLocation: Location = {
  id: '0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11',
  createdAt: '2024-01-15T10:00:00Z',
  updatedAt: '2024-03-01T08:30:00.250Z',
  notes: 'Gate code at the front desk',
  locationGroupId: '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50',
  geography: { country: 'US', region: 'CO', locality: 'Denver', postalCode: '80202' },
  address: {
    streetNumber: '1600',
    streetName: 'Glenarm',
    streetDirection: 'N',
    streetType: 'PLACE',
    streetSuffix: 'ROAD',
    subunitType: 'APT',
    subunitIdentifier: '4B',
    addressGroupId: '7c8d9e0f-1a2b-4c3d-8e4f-5a6b7c8d9e0f',
  },
  coordinates: { latitude: 39.7447, longitude: -104.9903 },
  fiberAccessDetails: {
    circuitId: 'CIR-1001',
    fda: 'FDA-12',
    fdh: 'FDH-3',
    splitterPort: '1-4',
    layer2AccessProtocol: 'XGS-PON',
    dropStatus: 'UNDERGROUND_COMPLETE',
    serviceability: { status: 'ACTIVE', availableDate: '2024-02-29' },
  },
  customFields: { tier: 'gold', floors: 12, mdu: true, tags: ['fiber', 2, false] },
};

/** The issues `schema` reports for `value`, or `[]` when it is valid. */
export function issuesOf(schema: z.ZodType<unknown, z.ZodTypeDef, unknown>, value: unknown): ValidationIssue[] {
  const result = validate(schema, value);
  return result.ok ? [] : result.issues;
}
