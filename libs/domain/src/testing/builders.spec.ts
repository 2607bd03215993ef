import { locationInputSchema, locationSchema, validate } from '@lx/contracts';
import { aLocation, aLocationInput, anAddress } from './builders';

describe('builders', () => {
  it('given no overrides, when built, then aLocation is a valid Location resource', () => {
    expect(validate(locationSchema, aLocation()).ok).toBe(true);
  });

  it('given no overrides, when built, then aLocationInput has geography, address and coordinates only', () => {
    expect(Object.keys(aLocationInput())).toEqual(['geography', 'address', 'coordinates']);
    expect(validate(locationInputSchema, aLocationInput()).ok).toBe(true);
  });

  it('given a status, when built, then it lands in fiberAccessDetails.serviceability and keeps other fiber fields', () => {
    expect(aLocation({ fiberAccessDetails: { fda: 'FDA-1' }, status: 'ACTIVE' }).fiberAccessDetails).toEqual({
      fda: 'FDA-1',
      serviceability: { status: 'ACTIVE' },
    });
  });

  it('given undefined for a field, when built, then the field is absent, not undefined', () => {
    expect('coordinates' in aLocation({ coordinates: undefined })).toBe(false);
    expect('streetDirection' in anAddress({ streetDirection: undefined })).toBe(false);
  });
});
