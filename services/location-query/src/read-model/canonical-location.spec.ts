import type { Location } from '@lx/contracts';
import { canonicalLocation } from './canonical-location';

describe('canonicalLocation', () => {
  it('given a location written in another field order, when made canonical, then fields follow the contract order', () => {
    const scrambled = {
      customFields: { z: 1, a: 2 },
      fiberAccessDetails: { serviceability: { availableDate: '2024-01-01', status: 'ACTIVE' }, circuitId: 'C1' },
      coordinates: { longitude: 2, latitude: 1 },
      address: { streetType: 'ST', streetNumber: '1', streetName: 'Main' },
      geography: { postalCode: '80202', locality: 'Denver', region: 'CO', country: 'US' },
      updatedAt: '2024-01-02T00:00:00Z',
      createdAt: '2024-01-01T00:00:00Z',
      id: '0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11',
    } as unknown as Location;

    const canonical = canonicalLocation(scrambled);

    expect(canonical).toEqual(scrambled);
    expect(JSON.stringify(canonical)).toBe(
      '{"id":"0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11","createdAt":"2024-01-01T00:00:00Z","updatedAt":"2024-01-02T00:00:00Z",' +
        '"geography":{"country":"US","region":"CO","locality":"Denver","postalCode":"80202"},' +
        '"address":{"streetNumber":"1","streetName":"Main","streetType":"ST"},' +
        '"coordinates":{"latitude":1,"longitude":2},' +
        '"fiberAccessDetails":{"circuitId":"C1","serviceability":{"status":"ACTIVE","availableDate":"2024-01-01"}},' +
        '"customFields":{"z":1,"a":2}}',
    );
  });
});
