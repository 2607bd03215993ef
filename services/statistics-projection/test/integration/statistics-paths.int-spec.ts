import { Client } from 'pg';
import type { Location, ServiceabilityStatus } from '@lx/contracts';
import { parseStatisticsQuery, type QueryParameters } from '@lx/domain';
import { aGeography, aLocation, anAddress } from '@lx/domain/testing';
import {
  countersAgreeWithFacts,
  inTransaction,
  migrateTestSchema,
  projectedEvent,
  recountFacts,
  recountWhere,
  requireEnv,
  uniqueSuffix,
} from '@lx/testing';
import { MIGRATIONS } from '../../src/database/migrations';
import { LocationFactsProjection } from '../../src/facts/location-facts.projection';
import { type StatisticsSource, sourceFor } from '../../src/statistics/infrastructure/statistics-query';
import { MetricsRegistry, ReadPool } from '@lx/platform';
import { StatisticsRepository } from '../../src/statistics/infrastructure/statistics.repository';

const LOCATION_GROUPS = ['1b4e28ba-2fa1-41d2-883f-0016d3cca427', '6fa459ea-ee8a-4ca4-894e-db77e160355e', undefined];
const ADDRESS_GROUPS = ['9c858901-8a57-4791-81fe-4c455b099bc9', undefined, undefined];
const STATUSES: (ServiceabilityStatus | undefined)[] = [
  'PLANNED',
  'CONSTRUCTION',
  'ACTIVE',
  'ACTIVE',
  'INACTIVE',
  'CANCELLED',
  'RETIRED',
  undefined,
];
/** Region CO exists in two countries, so a region alone is not a country and region. */
const GEOGRAPHIES = [
  { country: 'US', region: 'CO' },
  { country: 'US', region: 'TX' },
  { country: 'CA', region: 'ON' },
  { country: 'CA', region: 'CO' },
];
const LOCALITIES = ['Denver', 'Austin', 'Toronto'];
const POSTAL_CODES = ['80202', '73301', 'M5V', '00000'];
/**
 * Days of updatedAt: both sides of a year boundary and of two month boundaries (one a leap day), then ten UTC days of
 * March 2024; at times on and next to the day boundaries the rollups path splits at (the first and last microsecond
 * of a day, midnight itself).
 */
const DATES = [
  '2023-12-30',
  '2023-12-31',
  '2024-01-01',
  '2024-01-15',
  '2024-01-31',
  '2024-02-01',
  '2024-02-29',
  ...Array.from({ length: 10 }, (_, day) => `2024-03-${String(day + 1).padStart(2, '0')}`),
];
const TIMES_OF_DAY = ['00:00:00Z', '00:00:00.000001Z', '06:30:00Z', '12:00:00Z', '23:59:59.999Z', '23:59:59.999999Z'];

/** A small deterministic generator (mulberry32), so a failing case can be reproduced. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every filter combination the planner routes, by the path it must take. */
const RANGES = [
  'modifiedSince=2024-03-04T00:00:00Z',
  'modifiedSince=2024-03-03T23:59:59.999999Z',
  'modifiedBefore=2024-03-07T00:00:00Z',
  'modifiedBefore=2024-03-07T00:00:00.000001Z',
  'modifiedSince=2024-03-02T12:00:00Z&modifiedBefore=2024-03-08T23:59:59.999Z',
  'modifiedSince=2024-03-05T00:00:00Z&modifiedBefore=2024-03-06T00:00:00Z',
  'modifiedSince=2024-03-05T06:00:00Z&modifiedBefore=2024-03-05T23:59:59.9999995Z',
];
const WITH_RANGE = [
  '',
  'hasAddress=true',
  'hasAddress=false',
  'hasCoordinates=true',
  'hasCoordinates=false',
  'hasLocationGroup=true',
  'hasLocationGroup=false',
  'status=ACTIVE',
  'status=PLANNED,CANCELLED&status=RETIRED&hasAddress=true&hasLocationGroup=false&hasCoordinates=true',
];
/** Ranges across the year boundary and month boundaries, starting and ending inside a day or on its edge. */
const LONG_RANGES = [
  'modifiedSince=2023-12-31T12:00:00Z&modifiedBefore=2024-03-05T06:30:00Z',
  'modifiedSince=2023-12-30T23:59:59.999999Z',
  'modifiedBefore=2024-02-01T00:00:00Z',
  'modifiedSince=2024-01-31T23:59:59.999Z&modifiedBefore=2024-03-01T00:00:00.000001Z',
  'modifiedSince=2024-01-01T00:00:00Z&modifiedBefore=2024-01-31T23:59:59.999999Z',
  'modifiedSince=2023-12-31T00:00:00Z&modifiedBefore=2024-02-29T12:00:00Z',
  'modifiedBefore=2024-01-01T00:00:00Z',
];
/**
 * Each rollup scope: every location, a country, a region in every country, a country and region, a location group,
 * a location group within a country or a region.
 */
const SCOPES = [
  '',
  'country=US',
  'region=CO',
  'country=CA&region=CO&status=ACTIVE,PLANNED,RETIRED',
  `locationGroupId=${LOCATION_GROUPS[0]}`,
  `locationGroupId=${LOCATION_GROUPS[1]}&status=ACTIVE,PLANNED&hasAddress=true`,
  `locationGroupId=${LOCATION_GROUPS[0]}&country=US`,
  `locationGroupId=${LOCATION_GROUPS[1]}&region=CO&hasLocationGroup=true`,
  `locationGroupId=${LOCATION_GROUPS[0]}&country=CA&region=CO`,
];
const join = (...parts: string[]) => parts.filter((part) => part !== '').join('&');

const CASES: [StatisticsSource, string][] = [
  ['counters', ''],
  ['counters', 'status=ACTIVE'],
  ['counters', 'status=PLANNED,RETIRED&status=CANCELLED'],
  ['counters', 'hasAddress=true'],
  ['counters', 'hasAddress=false'],
  ['counters', 'hasCoordinates=true'],
  ['counters', 'hasCoordinates=false'],
  ['counters', 'hasLocationGroup=true'],
  ['counters', 'hasLocationGroup=false'],
  ['counters', 'status=ACTIVE,INACTIVE&hasAddress=true&hasCoordinates=false&hasLocationGroup=true'],
  ['geoCounters', 'country=US'],
  ['geoCounters', 'country=ca'],
  ['geoCounters', 'region=CO'],
  ['geoCounters', 'country=US&region=CO'],
  ['geoCounters', 'country=US&status=ACTIVE'],
  ['geoCounters', 'region=CO&status=PLANNED,CONSTRUCTION'],
  ['geoCounters', 'country=CA&region=CO&status=RETIRED,INACTIVE'],
  ['geoCounters', 'country=US&hasAddress=false'],
  ['geoCounters', 'region=TX&hasCoordinates=true&hasLocationGroup=false'],
  ['geoCounters', 'country=US&region=TX&status=ACTIVE&hasLocationGroup=true'],
  ...RANGES.flatMap((range) => WITH_RANGE.map((extra): [StatisticsSource, string] => ['rollups', join(range, extra)])),
  ...LONG_RANGES.flatMap((range) => SCOPES.map((scope): [StatisticsSource, string] => ['rollups', join(range, scope)])),
  ['rollups', 'modifiedSince=2024-04-01T00:00:00Z'],
  ['rollups', 'modifiedBefore=2024-03-01T00:00:00Z'],
  ['rollups', `locationGroupId=${LOCATION_GROUPS[0]}`],
  ['rollups', `locationGroupId=${LOCATION_GROUPS[1]}&status=ACTIVE,PLANNED`],
  ['rollups', `locationGroupId=${LOCATION_GROUPS[1]}&hasCoordinates=false&hasLocationGroup=true`],
  ['rollups', 'modifiedSince=2024-03-04T00:00:00Z&country=US'],
  ['rollups', 'modifiedBefore=2024-03-07T00:00:00Z&region=CO&status=ACTIVE'],
  ['rollups', 'modifiedSince=2024-03-02T12:00:00Z&modifiedBefore=2024-03-08T00:00:00Z&country=ca&hasAddress=true'],
  ['rollups', `modifiedSince=2024-03-03T00:00:00Z&locationGroupId=${LOCATION_GROUPS[1]}`],
  ['rollups', `locationGroupId=${LOCATION_GROUPS[0]}&country=US`],
  ['rollups', `locationGroupId=${LOCATION_GROUPS[1]}&region=CO&hasAddress=false`],
  ['rollups', `locationGroupId=${LOCATION_GROUPS[1]}&country=ca&region=CO&modifiedSince=2024-01-01T00:00:00Z`],
  ['facts', `addressGroupId=${ADDRESS_GROUPS[0]}`],
  ['facts', `addressGroupId=${ADDRESS_GROUPS[0]}&hasCoordinates=false`],
  ['facts', 'locality=Denver'],
  ['facts', 'locality=Austin&hasLocationGroup=true&status=CONSTRUCTION,ACTIVE'],
  ['facts', 'postalCode=80202'],
  ['facts', 'postalCode=M5V&hasAddress=true'],
  ['facts', 'locality=Toronto&country=CA'],
  ['facts', 'postalCode=00000&region=CO'],
  ['facts', `locationGroupId=${LOCATION_GROUPS[0]}&addressGroupId=${ADDRESS_GROUPS[0]}`],
  ['facts', 'modifiedBefore=2024-03-06T23:59:59.999999Z&postalCode=73301&hasLocationGroup=false'],
  ['facts', 'modifiedSince=2024-03-05T00:00:00Z&modifiedBefore=2024-03-06T00:00:00Z&locality=Denver'],
  [
    'facts',
    `status=ACTIVE,PLANNED,INACTIVE&modifiedSince=2024-03-01T00:00:00Z&modifiedBefore=2024-03-10T00:00:00Z` +
      `&hasAddress=true&hasCoordinates=true&hasLocationGroup=true&locationGroupId=${LOCATION_GROUPS[0]}` +
      '&country=us&region=CO&locality=Denver&postalCode=80202',
  ],
];

/** The query string as Fastify hands it to the controller: a repeated parameter becomes a list. */
function parameters(query: string): QueryParameters {
  const result: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(query)) {
    const seen = result[name];
    result[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return result;
}

/**
 * Every path of GET /locations/statistics (overall counters, geography counters, the rollups plus the edge days from
 * the facts, the facts) against a SQL recount over the facts, for each filter combination the planner routes to
 * it. The facts and counters are built by the projection's apply, in batches of real transactions (creates, updates
 * that move locations between cells, days and regions, several versions of one location in a batch, stale versions),
 * in a private schema: no other test writes there, so every answer is exact.
 */
describe('statistics: every path against a recount of the facts', () => {
  const schema = `sp_paths_${uniqueSuffix()}`;
  const databaseUrl = requireEnv('DATABASE_URL');
  const db = new Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
  const pool = new ReadPool(
    {
      database: { url: databaseUrl, schema },
      read: { poolSize: 3, statementTimeoutMs: 60_000, scanConcurrency: 2, queueTimeoutMs: 60_000 },
    },
    new MetricsRegistry(),
  );
  const repository = new StatisticsRepository(pool);
  const projection = new LocationFactsProjection();
  const next = random(14);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
  let total = 0;

  /** A location with every dimension drawn at random. */
  function drawn(id: string, createdAt: string): Location {
    const address = pick([true, true, false]);
    const coordinates = address ? pick([true, false]) : true;
    const status = pick(STATUSES);
    const addressGroupId = pick(ADDRESS_GROUPS);
    const geography = pick(GEOGRAPHIES);
    return aLocation({
      id,
      createdAt,
      updatedAt: `${pick(DATES)}T${pick(TIMES_OF_DAY)}`,
      geography: aGeography({ ...geography, locality: pick(LOCALITIES), postalCode: pick(POSTAL_CODES) }),
      address: address ? anAddress(addressGroupId === undefined ? {} : { addressGroupId }) : undefined,
      coordinates: coordinates ? { latitude: 39.7447, longitude: -104.9903 } : undefined,
      locationGroupId: pick(LOCATION_GROUPS),
      ...(status === undefined ? {} : { status }),
    });
  }

  beforeAll(async () => {
    await migrateTestSchema({ databaseUrl, schema, migrations: MIGRATIONS });
    await db.connect();
    const locations = 600;
    const state = new Map<string, { location: Location; version: number }>();
    const history: ReturnType<typeof projectedEvent>[] = [];
    for (let index = 0; index < locations; index += 1) {
      const id = `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`;
      const location = drawn(id, '2024-02-01T00:00:00Z');
      state.set(id, { location, version: 1 });
      history.push(projectedEvent('LOCATION_CREATED', location, 1));
    }
    // Updates: each a fresh draw of every dimension, so locations leave their cells, days and regions.
    for (let update = 0; update < 900; update += 1) {
      const id = `00000000-0000-4000-8000-${String(Math.floor(next() * locations)).padStart(12, '0')}`;
      const entry = state.get(id)!;
      const location = drawn(id, entry.location.createdAt);
      state.set(id, { location, version: entry.version + 1 });
      history.push(projectedEvent('LOCATION_UPDATED', location, entry.version + 1));
    }
    // Batches of varying size in log order, so one batch often holds several versions of a location; now and then
    // an older event again (a redelivery), which must change nothing.
    for (let start = 0; start < history.length;) {
      const size = 1 + Math.floor(next() * 60);
      const batch = history.slice(start, start + size);
      if (start > 0 && next() < 0.3) batch.push(history[Math.floor(next() * start)]!);
      await inTransaction(db, () => projection.apply(db, batch));
      start += size;
    }
    total = locations;
  }, 120_000);

  afterAll(async () => {
    await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db.end();
    await pool.beforeApplicationShutdown();
  });

  it('given the seeded facts, then every counters table equals a recount of the facts', async () => {
    const agreement = await countersAgreeWithFacts(db);
    expect(agreement.counters).toEqual(agreement.facts);
    expect(agreement.geoByRegion).toEqual(agreement.factsByRegion);
    expect(agreement.dayCounters).toEqual(agreement.factsByDay);
    expect(agreement.rollups).toEqual(agreement.factsByRollup);
    expect((await recountFacts(db)).totalCount).toBe(total);
  });

  it.each(CASES)('given the seeded facts, when routed to %s, then ?%s answers as a recount', async (source, query) => {
    const filter = parseStatisticsQuery(parameters(query));
    if (!filter.ok) throw filter.error;
    expect(sourceFor(filter.value)).toBe(source);

    const [where, values] = recountWhere(query);
    expect(await repository.count(filter.value)).toEqual(await recountFacts(db, where, values));
  });

  it('given the seeded facts, then the cases are not trivial: most match some locations but not all', async () => {
    let between = 0;
    for (const [, query] of CASES) {
      const [where, values] = recountWhere(query);
      const { totalCount } = await recountFacts(db, where, values);
      if (totalCount > 0 && totalCount < total) between += 1;
    }
    expect(between).toBeGreaterThanOrEqual(CASES.length - 4);
  });
});
