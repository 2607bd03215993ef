import type { LocationInput, ServiceabilityStatus } from '@lx/contracts';
import { seededRandom } from '@lx/platform';

/** A location of the demo data set as the operator's import takes it: an id and the write body. */
export type DemoLocation = LocationInput & { id: string };

interface Locality {
  name: string;
  postalCode: string;
  latitude: number;
  longitude: number;
}

/** Where the demo network runs: five Colorado localities. */
const LOCALITIES: readonly Locality[] = [
  { name: 'Denver', postalCode: '80202', latitude: 39.7392, longitude: -104.9903 },
  { name: 'Boulder', postalCode: '80302', latitude: 40.015, longitude: -105.2705 },
  { name: 'Aurora', postalCode: '80012', latitude: 39.7294, longitude: -104.8319 },
  { name: 'Fort Collins', postalCode: '80521', latitude: 40.5853, longitude: -105.0844 },
  { name: 'Colorado Springs', postalCode: '80903', latitude: 38.8339, longitude: -104.8214 },
];

const STREETS = [
  ['Glenarm', 'PLACE'],
  ['Colfax', 'AVENUE'],
  ['Pearl', 'STREET'],
  ['Broadway', 'STREET'],
  ['Walnut', 'STREET'],
  ['Mountain View', 'ROAD'],
  ['Aspen', 'COURT'],
  ['Canyon', 'BOULEVARD'],
  ['Larimer', 'STREET'],
  ['Cherry Creek', 'DRIVE'],
] as const;
const DIRECTIONS = ['N', 'S', 'E', 'W'] as const;
const PROTOCOLS = ['XGS-PON', 'GPON', 'XGS-PON', 'ETHERNET'] as const;

/** Serviceability of the demo locations, by share: every status of the lifecycle occurs. */
const STATUS_SHARES: readonly [ServiceabilityStatus, number][] = [
  ['ACTIVE', 0.6],
  ['PLANNED', 0.15],
  ['CONSTRUCTION', 0.1],
  ['INACTIVE', 0.07],
  ['RETIRED', 0.05],
  ['CANCELLED', 0.03],
];

/** Single-family homes per locality, and apartment buildings (MDUs) per locality. */
const HOMES_PER_LOCALITY = 480;
const MDUS_PER_LOCALITY = 8;

/** A version 4 UUID drawn from `next`. */
function uuid(next: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16));
  hex[12] = '4';
  hex[16] = (Math.floor(next() * 4) + 8).toString(16);
  const text = hex.join('');
  return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`;
}

function pick<T>(next: () => number, values: readonly T[]): T {
  return values[Math.floor(next() * values.length)]!;
}

function statusOf(next: () => number): ServiceabilityStatus {
  let roll = next();
  for (const [status, share] of STATUS_SHARES) {
    roll -= share;
    if (roll < 0) return status;
  }
  return 'ACTIVE';
}

/** The groups of the demo data set, created through the operator API before the import. */
export interface DemoGroupPlan {
  /** One location group per locality (a build phase). */
  locationGroups: { key: string; name: string }[];
  /** One address group per apartment building. */
  addressGroups: { key: string; name: string }[];
}

export function demoGroupPlan(): DemoGroupPlan {
  return {
    locationGroups: LOCALITIES.map((locality) => ({ key: locality.name, name: `${locality.name} fiber build` })),
    addressGroups: LOCALITIES.flatMap((locality) =>
      Array.from({ length: MDUS_PER_LOCALITY }, (_, building) => ({
        key: `${locality.name}/${building}`,
        name: `${locality.name} apartments ${building + 1}`,
      })),
    ),
  };
}

/**
 * The demo data set: about three thousand locations in five localities — single-family homes, most in their
 * locality's build phase (location group), some standalone, some with an address only or coordinates only; and
 * apartment buildings (MDUs, each an address group) with a location per unit — with every serviceability status.
 * `groupIds` maps the keys of demoGroupPlan to the ids the operator API gave the groups.
 */
export function demoLocations(groupIds: ReadonlyMap<string, string>): DemoLocation[] {
  // Deterministic, so every first start loads the same data set.
  const next = seededRandom(20_261_124);
  const locations: DemoLocation[] = [];
  const fiber = (status: ServiceabilityStatus, index: number) => ({
    circuitId: `CIR-${10_000 + index}`,
    fda: `FDA-${1 + (index % 24)}`,
    fdh: `FDH-${1 + (index % 7)}`,
    splitterPort: `${1 + (index % 4)}-${1 + (index % 32)}`,
    layer2AccessProtocol: pick(next, PROTOCOLS),
    dropStatus: status === 'ACTIVE' ? 'UNDERGROUND_COMPLETE' : 'NOT_STARTED',
    serviceability: {
      status,
      ...(status === 'PLANNED' || status === 'CONSTRUCTION'
        ? { availableDate: `2027-${String(1 + Math.floor(next() * 12)).padStart(2, '0')}-01` }
        : {}),
    },
  });
  const near = (locality: Locality) => ({
    latitude: Number((locality.latitude + (next() - 0.5) * 0.08).toFixed(6)),
    longitude: Number((locality.longitude + (next() - 0.5) * 0.08).toFixed(6)),
  });

  for (const locality of LOCALITIES) {
    const geography = { country: 'US', region: 'CO', locality: locality.name, postalCode: locality.postalCode };
    for (let home = 0; home < HOMES_PER_LOCALITY; home += 1) {
      const [streetName, streetType] = pick(next, STREETS);
      const status = statusOf(next);
      const shape = next();
      const address = {
        streetNumber: String(100 + Math.floor(next() * 9_800)),
        streetName,
        streetType,
        ...(next() < 0.3 ? { streetDirection: pick(next, DIRECTIONS) } : {}),
      };
      locations.push({
        id: uuid(next),
        geography,
        // 8 % address only, 4 % coordinates only (rural drops), the rest both.
        ...(shape >= 0.04 ? { address } : {}),
        ...(shape < 0.04 || shape >= 0.12 ? { coordinates: near(locality) } : {}),
        // 85 % belong to the locality's build phase; the rest are standalone.
        ...(next() < 0.85 ? { locationGroupId: groupIds.get(locality.name) } : {}),
        fiberAccessDetails: fiber(status, locations.length),
        customFields: { premises: 'single-family', demo: true },
      });
    }
    for (let building = 0; building < MDUS_PER_LOCALITY; building += 1) {
      const [streetName, streetType] = pick(next, STREETS);
      const streetNumber = String(1_000 + Math.floor(next() * 8_000));
      const coordinates = near(locality);
      const addressGroupId = groupIds.get(`${locality.name}/${building}`);
      const units = 10 + Math.floor(next() * 21);
      for (let unit = 0; unit < units; unit += 1) {
        const status = statusOf(next);
        locations.push({
          id: uuid(next),
          geography,
          address: {
            streetNumber,
            streetName,
            streetType,
            subunitType: 'APT',
            subunitIdentifier: `${1 + Math.floor(unit / 6)}${String.fromCharCode(65 + (unit % 6))}`,
            ...(addressGroupId ? { addressGroupId } : {}),
          },
          coordinates,
          locationGroupId: groupIds.get(locality.name),
          fiberAccessDetails: fiber(status, locations.length),
          customFields: { premises: 'mdu', floors: 1 + Math.floor(units / 6), demo: true },
        });
      }
    }
  }
  return locations;
}
