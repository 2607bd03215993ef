import { randomUUID } from 'node:crypto';
import { type Location, type ServiceabilityStatus, statisticsResponseSchema, TOPICS, validate } from '@lx/contracts';
import {
  aNewLocation,
  countersAgreeWithFacts,
  expectedCounts,
  publish,
  recountFacts,
  uniqueSuffix,
  waitFor,
  waitUntilCaughtUp,
} from '@lx/testing';
import { startStatistics, type StatisticsHarness } from '../support/statistics-harness';

/** GET /locations/statistics over facts fed by events published straight to location.events.v1. */
describe('statistics projection', () => {
  let service: StatisticsHarness;
  const suffix = uniqueSuffix();
  /** Geography of this test only, so its counts are not disturbed by other tests publishing on the same topic. */
  const region = `R-${suffix}`;
  const locality = `Town-${suffix}`;
  const groupA = randomUUID();
  const groupB = randomUUID();
  const mdu = randomUUID();
  /** The command side's state as this test publishes it: id → [location, version]. */
  const state = new Map<string, { location: Location; version: number }>();

  beforeAll(async () => {
    service = await startStatistics();
  }, 60_000);

  afterAll(() => service?.close());

  const factVersion = async (id: string) => {
    const { rows } = await service.db.query(`SELECT version FROM location_facts WHERE location_id = $1`, [id]);
    return rows[0]?.version as number | undefined;
  };
  const settle = async () => {
    const ids = [...state.keys()];
    await waitFor('facts at the published versions', async () => {
      const { rows } = await service.db.query<{ location_id: string; version: number }>(
        `SELECT location_id, version FROM location_facts WHERE location_id = ANY($1::uuid[])`,
        [ids],
      );
      const stored = new Map(rows.map((row) => [row.location_id, row.version]));
      return ids.every((id) => stored.get(id) === state.get(id)!.version);
    });
  };
  const write = async (location: Location) => {
    const previous = state.get(location.id);
    const version = (previous?.version ?? 0) + 1;
    state.set(location.id, { location, version });
    await publish(service.bus, previous ? 'LOCATION_UPDATED' : 'LOCATION_CREATED', location, version);
  };
  const mine = () => [...state.values()].map((entry) => entry.location);
  const stats = async (query: string) => {
    const reply = await service.get(`/locations/statistics?${query}`);
    expect(reply.status).toBe(200);
    expect(validate(statisticsResponseSchema, reply.body).ok).toBe(true);
    const { queryTimestamp: _queryTimestamp, ...counts } = reply.body;
    return counts;
  };
  const withStatus = (location: Location, status: ServiceabilityStatus | undefined): Location => {
    const { fiberAccessDetails: _fiber, ...rest } = location;
    return status === undefined ? rest : { ...rest, fiberAccessDetails: { serviceability: { status } } };
  };

  /** Twenty locations of every shape, status (or none) and grouping, all in this test's region and locality. */
  function seedLocations(): Location[] {
    const statuses: (ServiceabilityStatus | undefined)[] = [
      'PLANNED',
      'CONSTRUCTION',
      'ACTIVE',
      'ACTIVE',
      'INACTIVE',
      'CANCELLED',
      'RETIRED',
      undefined,
    ];
    return Array.from({ length: 20 }, (_, index) => {
      const shape = index % 3;
      const location = aNewLocation({
        updatedAt: new Date(Date.UTC(2024, 0, 1 + index)).toISOString(),
        geography: { country: 'US', region, locality, postalCode: `P${index % 4}-${suffix}` },
        ...(index % 4 === 0 ? {} : { locationGroupId: index % 2 === 0 ? groupA : groupB }),
      });
      const address = { ...location.address!, ...(index % 5 === 0 ? { addressGroupId: mdu } : {}) };
      const shaped: Location =
        shape === 0
          ? { ...location, address }
          : shape === 1
            ? (({ coordinates: _c, ...rest }) => ({ ...rest, address }))(location)
            : (({ address: _a, ...rest }) => rest)(location);
      return withStatus(shaped, statuses[index % statuses.length]);
    });
  }

  it('counts every filter of the spec exactly, alone and combined', async () => {
    for (const location of seedLocations()) await write(location);
    await settle();

    const scoped = `region=${encodeURIComponent(region)}`;
    const cases: [string, (location: Location) => boolean][] = [
      [scoped, () => true],
      [`locality=${locality}`, () => true],
      [`${scoped}&status=ACTIVE`, (l) => l.fiberAccessDetails?.serviceability?.status === 'ACTIVE'],
      [
        `${scoped}&status=PLANNED,RETIRED&status=CANCELLED`,
        (l) => ['PLANNED', 'RETIRED', 'CANCELLED'].includes(l.fiberAccessDetails?.serviceability?.status ?? ''),
      ],
      [`${scoped}&hasAddress=false`, (l) => l.address === undefined],
      [`${scoped}&hasCoordinates=true`, (l) => l.coordinates !== undefined],
      [`${scoped}&hasLocationGroup=false`, (l) => l.locationGroupId === undefined],
      [`locality=${locality}&hasLocationGroup=true`, (l) => l.locationGroupId !== undefined],
      [`locationGroupId=${groupA}`, (l) => l.locationGroupId === groupA],
      [`addressGroupId=${mdu}`, (l) => l.address?.addressGroupId === mdu],
      [`postalCode=P1-${suffix}`, (l) => l.geography.postalCode === `P1-${suffix}`],
      [
        `country=US&${scoped}&status=ACTIVE,INACTIVE`,
        (l) => ['ACTIVE', 'INACTIVE'].includes(l.fiberAccessDetails?.serviceability?.status ?? ''),
      ],
      [
        `locality=${locality}&modifiedSince=2024-01-10T00:00:00Z`,
        (l) => Date.parse(l.updatedAt) > Date.parse('2024-01-10T00:00:00Z'),
      ],
      [
        `locality=${locality}&modifiedSince=2024-01-05T00:00:00Z&modifiedBefore=2024-01-15T00:00:00Z`,
        (l) =>
          Date.parse(l.updatedAt) > Date.parse('2024-01-05T00:00:00Z') &&
          Date.parse(l.updatedAt) < Date.parse('2024-01-15T00:00:00Z'),
      ],
      [
        `locationGroupId=${groupB}&hasAddress=true&hasCoordinates=false&status=ACTIVE,CONSTRUCTION,INACTIVE`,
        (l) =>
          l.locationGroupId === groupB &&
          l.address !== undefined &&
          l.coordinates === undefined &&
          ['ACTIVE', 'CONSTRUCTION', 'INACTIVE'].includes(l.fiberAccessDetails?.serviceability?.status ?? ''),
      ],
    ];
    for (const [query, keep] of cases) {
      expect({ query, counts: await stats(query) }).toEqual({ query, counts: expectedCounts(mine().filter(keep)) });
    }
    // A location without serviceability status: in totalCount, in no countByStatus key.
    const all = await stats(scoped);
    const byStatus = Object.values(all.countByStatus as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(all.totalCount - byStatus).toBe(mine().filter((l) => l.fiberAccessDetails === undefined).length);
    expect(all.totalCount - byStatus).toBeGreaterThan(0);
  });

  it('moves the counts with status changes, group moves and removed coordinates', async () => {
    const [first, second, third] = mine();
    await write({ ...withStatus(first!, 'ACTIVE'), updatedAt: '2024-03-01T00:00:00Z' });
    await write({ ...second!, locationGroupId: groupA });
    const { coordinates: _coordinates, ...withoutCoordinates } = third!;
    await write({
      ...withoutCoordinates,
      address: third!.address ?? { streetNumber: '9', streetName: 'X', streetType: 'ST' },
    });
    await settle();

    const scoped = `region=${encodeURIComponent(region)}`;
    expect(await stats(scoped)).toEqual(expectedCounts(mine()));
    expect(await stats(`locationGroupId=${groupA}`)).toEqual(
      expectedCounts(mine().filter((l) => l.locationGroupId === groupA)),
    );
    expect(await stats(`locality=${locality}&status=ACTIVE`)).toEqual(
      expectedCounts(mine().filter((l) => l.fiberAccessDetails?.serviceability?.status === 'ACTIVE')),
    );
  });

  it('given the same event twice, then one effect', async () => {
    const location = aNewLocation({ geography: { country: 'US', region, locality, postalCode: `dup-${suffix}` } });
    await publish(service.bus, 'LOCATION_CREATED', location, 1);
    await publish(service.bus, 'LOCATION_CREATED', location, 1);
    const active = withStatus(location, 'ACTIVE');
    await publish(service.bus, 'LOCATION_UPDATED', active, 2);
    await publish(service.bus, 'LOCATION_UPDATED', active, 2);
    await waitFor('the duplicate applied once', async () => (await factVersion(location.id)) === 2);
    state.set(location.id, { location: active, version: 2 });
    const counts = await stats(`postalCode=dup-${suffix}`);
    expect(counts.totalCount).toBe(1);
    expect(counts.countByStatus.ACTIVE).toBe(1);
    expect(await stats(`region=${encodeURIComponent(region)}`)).toEqual(expectedCounts(mine()));
  });

  it('given version n+2 before n+1, then the counts are those of n+2', async () => {
    const location = withStatus(
      aNewLocation({ geography: { country: 'US', region, locality, postalCode: `ooo-${suffix}` } }),
      'PLANNED',
    );
    const retired = withStatus(location, 'RETIRED');
    await publish(service.bus, 'LOCATION_CREATED', location, 1);
    await publish(service.bus, 'LOCATION_UPDATED', retired, 3);
    await publish(service.bus, 'LOCATION_UPDATED', withStatus(location, 'ACTIVE'), 2);
    await waitUntilCaughtUp(service.bus, service.db, service.groupId, [TOPICS.locationEvents.name]);
    state.set(location.id, { location: retired, version: 3 });

    expect(await factVersion(location.id)).toBe(3);
    expect((await stats(`postalCode=ooo-${suffix}`)).countByStatus).toMatchObject({
      RETIRED: 1,
      ACTIVE: 0,
      PLANNED: 0,
    });
    expect(await stats(`region=${encodeURIComponent(region)}`)).toEqual(expectedCounts(mine()));
  });

  it('keeps the counters equal to a recount of the facts, and answers unfiltered and status-only from them', async () => {
    const agreement = await countersAgreeWithFacts(service.db);
    expect(agreement.counters).toEqual(agreement.facts);
    expect(agreement.geo).toEqual(agreement.facts);
    expect(agreement.geoByRegion).toEqual(agreement.factsByRegion);
    expect(agreement.dayCounters).toEqual(agreement.factsByDay);
    expect(agreement.rollups).toEqual(agreement.factsByRollup);

    // Other tests may publish meanwhile: compare the HTTP answer with a recount taken right after, until both agree.
    for (const [query, where, values] of [
      ['', 'TRUE', []],
      ['status=ACTIVE,RETIRED', `status = ANY($1)`, [['ACTIVE', 'RETIRED']]],
      ['hasAddress=true&hasLocationGroup=false', 'has_address AND location_group_id IS NULL', []],
    ] as const) {
      await waitFor(`statistics?${query} equal to a recount`, async () => {
        const answer = await stats(query);
        return JSON.stringify(answer) === JSON.stringify(await recountFacts(service.db, where, [...values]));
      });
    }
  });

  it('answers modifiedSince / modifiedBefore from the day counters plus the boundary days, equal to a recount', async () => {
    for (const [query, where, values] of [
      ['modifiedSince=2024-01-05T00:00:00Z', 'updated_at > $1', ['2024-01-05T00:00:00Z']],
      ['modifiedSince=2024-01-04T23:59:59.999999Z', 'updated_at > $1', ['2024-01-04T23:59:59.999999Z']],
      ['modifiedBefore=2024-01-10T00:00:00.000Z', 'updated_at < $1', ['2024-01-10T00:00:00.000Z']],
      ['modifiedBefore=2024-01-10T00:00:00.001Z', 'updated_at < $1', ['2024-01-10T00:00:00.001Z']],
      [
        'modifiedSince=2024-01-03T00:00:00Z&modifiedBefore=2024-01-12T00:00:00.001Z',
        'updated_at > $1 AND updated_at < $2',
        ['2024-01-03T00:00:00Z', '2024-01-12T00:00:00.001Z'],
      ],
      [
        'modifiedSince=2024-01-05T00:00:00Z&modifiedBefore=2024-01-05T18:00:00Z',
        'updated_at > $1 AND updated_at < $2',
        ['2024-01-05T00:00:00Z', '2024-01-05T18:00:00Z'],
      ],
      [
        'modifiedSince=2023-12-31T23:00:00Z&status=ACTIVE,PLANNED&hasAddress=true',
        'updated_at > $1 AND status = ANY($2) AND has_address',
        ['2023-12-31T23:00:00Z', ['ACTIVE', 'PLANNED']],
      ],
      [
        `modifiedSince=${new Date(Date.now() - 3_600_000).toISOString()}&hasLocationGroup=false`,
        'updated_at > $1 AND location_group_id IS NULL',
        [new Date(Date.now() - 3_600_000).toISOString()],
      ],
    ] as const) {
      await waitFor(`statistics?${query} equal to a recount`, async () => {
        const answer = await stats(query);
        return JSON.stringify(answer) === JSON.stringify(await recountFacts(service.db, where, [...values]));
      });
    }
    // The part of this test's data inside one of those ranges, checked against the command side's state as well.
    const inRange = mine().filter(
      (l) =>
        Date.parse(l.updatedAt) > Date.parse('2024-01-03T00:00:00Z') &&
        Date.parse(l.updatedAt) < Date.parse('2024-01-12T00:00:00.001Z'),
    );
    expect(inRange.length).toBeGreaterThan(0);
  });

  it('answers every key, zeros included, for a filter nothing matches', async () => {
    const reply = await service.get(`/locations/statistics?locality=${randomUUID()}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      totalCount: 0,
      countByStatus: { PLANNED: 0, CONSTRUCTION: 0, ACTIVE: 0, INACTIVE: 0, CANCELLED: 0, RETIRED: 0 },
      countByType: { addressOnly: 0, coordinatesOnly: 0, addressAndCoordinates: 0, grouped: 0, standalone: 0 },
      queryTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
  });

  it.each([
    ['status=LIVE', 'INVALID_STATUS', 'status'],
    ['status=active', 'INVALID_STATUS', 'status'],
    ['modifiedSince=2024-01-01', 'INVALID_FILTER', 'modifiedSince'],
    ['modifiedBefore=2024-13-01T00:00:00Z', 'INVALID_FILTER', 'modifiedBefore'],
    ['hasAddress=yes', 'INVALID_FILTER', 'hasAddress'],
    ['hasCoordinates=1', 'INVALID_FILTER', 'hasCoordinates'],
    ['hasLocationGroup=', 'INVALID_FILTER', 'hasLocationGroup'],
    ['locationGroupId=123', 'INVALID_FILTER', 'locationGroupId'],
    ['addressGroupId=abc', 'INVALID_FILTER', 'addressGroupId'],
    ['country=USA', 'INVALID_FILTER', 'country'],
    ['postalCode=', 'INVALID_FILTER', 'postalCode'],
    ['city=Denver', 'INVALID_FILTER', 'city'],
    ['modifiedSince=2024-02-01T00:00:00Z&modifiedBefore=2024-01-01T00:00:00Z', 'INVALID_DATE_RANGE', 'modifiedSince'],
  ])('answers ?%s with 400 %s naming %s', async (query, code, field) => {
    const reply = await service.get(`/locations/statistics?${query}`);
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe(code);
    expect(reply.body.error.message).toContain(field);
    expect(reply.body.error.details.issues[0].field).toBe(field);
  });

  it('answers 401 without a token and 403 FORBIDDEN without locations:read', async () => {
    expect((await service.get('/locations/statistics', { token: null })).status).toBe(401);
    const writer = await service.issuer.token({ scopes: ['locations:write'] });
    expect((await service.get('/locations/statistics', { token: writer })).status).toBe(403);
  });
});
