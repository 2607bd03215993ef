import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { stringify } from 'csv-stringify';
import {
  LAYER2_ACCESS_PROTOCOLS,
  LOCATION_CSV_COLUMNS,
  type Location,
  locationToCsvRow,
  type ServiceabilityStatus,
  STREET_DIRECTIONS,
} from '@lx/contracts';
import { seededRandom } from '../../libs/platform/src/random/seeded-random';

/** A version-4-shaped UUID from the PRNG. */
export function uuidFrom(next: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16));
  hex[12] = '4';
  hex[16] = (Math.floor(next() * 4) + 8).toString(16);
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

/** The groups the generated locations reference; they must exist before the import. */
export interface GeneratedGroups {
  locationGroupIds: string[];
  addressGroupIds: string[];
}

export function generateGroups(seed: number, locationGroups = 25, addressGroups = 500): GeneratedGroups {
  const next = seededRandom(seed ^ 0x5eed);
  return {
    locationGroupIds: Array.from({ length: locationGroups }, () => uuidFrom(next)),
    addressGroupIds: Array.from({ length: addressGroups }, () => uuidFrom(next)),
  };
}

const CITIES = [
  ['US', 'CO', 'Denver', '802'],
  ['US', 'CO', 'Boulder', '803'],
  ['US', 'TX', 'Austin', '787'],
  ['US', 'WA', 'Seattle', '981'],
  ['CA', 'ON', 'Toronto', 'M5V'],
  ['AU', 'NSW', 'Sydney', '200'],
] as const;
const STREETS = ['Main', 'Glenarm', 'Colfax', 'Broadway', 'Lincoln', 'Pearl', 'Oak', 'Cedar', 'Elm', 'Maple'];
const STREET_TYPES = ['STREET', 'AVENUE', 'DRIVE', 'HIGHWAY', 'ST', 'Ave', 'Road', 'CREEK'];
const STATUSES: [ServiceabilityStatus, number][] = [
  ['PLANNED', 0.15],
  ['CONSTRUCTION', 0.1],
  ['ACTIVE', 0.55],
  ['INACTIVE', 0.08],
  ['CANCELLED', 0.05],
  ['RETIRED', 0.07],
];

function pick<T>(next: () => number, values: readonly T[]): T {
  return values[Math.floor(next() * values.length)]!;
}

function statusOf(next: () => number): ServiceabilityStatus {
  let roll = next();
  for (const [status, share] of STATUSES) {
    roll -= share;
    if (roll < 0) return status;
  }
  return 'ACTIVE';
}

/**
 * One realistic location: 45 % address and coordinates, 35 % address only, 20 % coordinates only; 60 % in a location
 * group, MDU units (15 %) in an address group with a subunit; every serviceability status, a few without fiber
 * details; custom fields on half of them, notes on a fifth.
 */
export function generateLocation(next: () => number, groups: GeneratedGroups, now: string): Location {
  const shape = next();
  const [country, region, locality, postalPrefix] = pick(next, CITIES);
  const location: Location = {
    id: uuidFrom(next),
    createdAt: now,
    updatedAt: now,
    geography: { country, region, locality, postalCode: `${postalPrefix}${Math.floor(next() * 90 + 10)}` },
  };
  if (next() < 0.2) location.notes = `Access via ${pick(next, ['rear gate', 'front desk', 'side door'])}`;
  if (next() < 0.6) location.locationGroupId = pick(next, groups.locationGroupIds);
  if (shape < 0.8) {
    const mdu = next() < 0.15;
    location.address = {
      streetNumber: String(Math.floor(next() * 9000) + 1),
      streetName: pick(next, STREETS),
      streetType: pick(next, STREET_TYPES),
      ...(next() < 0.3 ? { streetDirection: pick(next, STREET_DIRECTIONS) } : {}),
      ...(mdu
        ? {
            subunitType: pick(next, ['APT', 'APARTMENT', 'SUITE']),
            subunitIdentifier: `${Math.floor(next() * 30) + 1}${pick(next, ['A', 'B', 'C'])}`,
            addressGroupId: pick(next, groups.addressGroupIds),
          }
        : {}),
    };
  }
  if (shape >= 0.35) {
    location.coordinates = {
      latitude: Math.round((next() * 170 - 85) * 1e6) / 1e6,
      longitude: Math.round((next() * 350 - 175) * 1e6) / 1e6,
    };
  }
  if (next() < 0.95) {
    const status = statusOf(next);
    location.fiberAccessDetails = {
      circuitId: `CIR-${Math.floor(next() * 1e6)}`,
      fda: `FDA-${Math.floor(next() * 99)}`,
      fdh: `FDH-${Math.floor(next() * 20)}`,
      splitterPort: `${Math.floor(next() * 8) + 1}-${Math.floor(next() * 32) + 1}`,
      layer2AccessProtocol: pick(next, LAYER2_ACCESS_PROTOCOLS),
      dropStatus: pick(next, ['UNDERGROUND_COMPLETE', 'TEMP_DROP', 'AERIAL_COMPLETE']),
      serviceability:
        status === 'ACTIVE' || status === 'INACTIVE'
          ? { status, availableDate: `202${Math.floor(next() * 5)}-0${Math.floor(next() * 9) + 1}-15` }
          : { status },
    };
  }
  if (next() < 0.5) {
    location.customFields = {
      tier: pick(next, ['gold', 'silver', 'bronze']),
      floors: Math.floor(next() * 40) + 1,
      businessZone: next() < 0.3,
      tags: [pick(next, ['fiber', 'priority', 'legacy']), Math.floor(next() * 10)],
    };
  }
  return location;
}

/** Writes the locations of `seed` to `path`, one line each as `lineOf` renders it; resolves when the file is complete. */
async function writeLocationLines(
  path: string,
  rows: number,
  seed: number,
  groups: GeneratedGroups,
  lineOf: (location: Location) => string,
): Promise<void> {
  const next = seededRandom(seed);
  const now = new Date().toISOString();
  const file = createWriteStream(path);
  for (let n = 0; n < rows; n += 1) {
    if (!file.write(lineOf(generateLocation(next, groups, now)))) await once(file, 'drain');
  }
  file.end();
  await once(file, 'finish');
}

/**
 * Writes the same locations as `writeLocationsCsv` (same seed) as COPY text rows `id<TAB>document`, the document being
 * the Location as JSON: the input of the second baseline, one stored document per location.
 */
export function writeLocationDocuments(path: string, rows: number, seed: number, groups: GeneratedGroups) {
  // JSON text has no raw tab or line break; only its backslashes need escaping for COPY text format.
  return writeLocationLines(
    path,
    rows,
    seed,
    groups,
    (location) => `${location.id}\t${JSON.stringify(location).replaceAll('\\', '\\\\')}\n`,
  );
}

/** Writes the locations of `seed` as NDJSON, one Location object per line: the input of the NDJSON import. */
export function writeLocationsNdjson(path: string, rows: number, seed: number, groups: GeneratedGroups) {
  return writeLocationLines(path, rows, seed, groups, ({ createdAt: _created, updatedAt: _updated, ...input }) => {
    return `${JSON.stringify(input)}\n`;
  });
}

/** The columns of `writeSameWorkRows`' files, in their order. */
export const SAME_WORK_COLUMNS = {
  events: ['stream_id', 'stream_type', 'stream_version', 'event_id', 'event_type', 'payload', 'recorded_at'],
  states: [
    'stream_id',
    'stream_type',
    'version',
    'deleted',
    'location_group_id',
    'address_group_id',
    'serviceability_status',
    'updated_at',
  ],
};

/**
 * Writes, for the locations of `seed`, the rows an event-sourced writer must store in the end, already built: each
 * LOCATION_CREATED event with its envelope (COPY text rows of the events table) and each state row (of
 * aggregate_state). COPYing them into tables with the same indexes and constraints is the floor of any such writer.
 */
export async function writeSameWorkRows(
  eventsPath: string,
  statesPath: string,
  rows: number,
  seed: number,
  groups: GeneratedGroups,
): Promise<void> {
  const next = seededRandom(seed);
  const ids = seededRandom(seed ^ 0xe7e);
  const now = new Date().toISOString();
  const events = createWriteStream(eventsPath);
  const states = createWriteStream(statesPath);
  const nullable = (value: string | undefined) => value ?? '\\N';
  for (let n = 0; n < rows; n += 1) {
    const location = generateLocation(next, groups, now);
    const eventId = uuidFrom(ids);
    const envelope = {
      id: eventId,
      type: 'LOCATION_CREATED',
      timestamp: now,
      source: 'location-command',
      data: location,
    };
    // JSON text has no raw tab or line break; only its backslashes need escaping for COPY text format.
    const payload = JSON.stringify(envelope).replaceAll('\\', '\\\\');
    const status = location.fiberAccessDetails?.serviceability?.status;
    const event = `${location.id}\tlocation\t1\t${eventId}\tLOCATION_CREATED\t${payload}\t${now}\n`;
    const state = [
      location.id,
      'location',
      '1',
      'f',
      nullable(location.locationGroupId),
      nullable(location.address?.addressGroupId),
      nullable(status),
      now,
    ].join('\t');
    const eventsReady = events.write(event);
    if (!states.write(`${state}\n`)) await once(states, 'drain');
    if (!eventsReady) await once(events, 'drain');
  }
  events.end();
  states.end();
  await Promise.all([once(events, 'finish'), once(states, 'finish')]);
}

/** Writes `rows` generated locations as a CSV file in the export layout; resolves when the file is complete. */
export async function writeLocationsCsv(
  path: string,
  rows: number,
  seed: number,
  groups: GeneratedGroups,
): Promise<void> {
  const next = seededRandom(seed);
  const now = new Date().toISOString();
  const csv = stringify({ header: true, columns: [...LOCATION_CSV_COLUMNS] });
  const file = createWriteStream(path);
  csv.pipe(file);
  for (let n = 0; n < rows; n += 1) {
    if (!csv.write(locationToCsvRow(generateLocation(next, groups, now)))) await once(csv, 'drain');
  }
  csv.end();
  await once(file, 'finish');
}
