import { Client } from 'pg';
import { type Location, type ServiceabilityStatus, TOPICS } from '@lx/contracts';
import {
  countersAgreeWithFacts,
  type Counts,
  expectedCounts,
  recountFacts,
  recountWhere,
  requireEnv,
  startTestTokenIssuer,
  storeLogEndAsPosition,
  testKafka,
  type TestTokenIssuer,
  uniqueSuffix,
  waitFor,
} from '@lx/testing';
import { runServiceCli, type ServiceProcess, startServiceProcess } from '../support/service-process';

const OPERATIONS = Number(process.env['LX_E2E_OPERATIONS'] ?? 3_000);
const WORKERS = 8;
const LOCATION_TOPICS = [TOPICS.locationEvents.name, TOPICS.locationGroupEvents.name, TOPICS.addressGroupEvents.name];
const STATUSES: ServiceabilityStatus[] = ['PLANNED', 'CONSTRUCTION', 'ACTIVE', 'INACTIVE', 'CANCELLED', 'RETIRED'];

/** A small seeded generator (mulberry32), so a failing sequence can be run again with LX_E2E_SEED. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (probability: number) => next() < probability,
  };
}

/**
 * The whole read side against real Postgres and Kafka: location-command (the write side), location-query and
 * statistics-projection run as their own processes, each on a schema of its own, on the file's topics; the
 * projections start at their end. A randomized sequence of writes goes through the operator API while each
 * projection is SIGKILLed and restarted mid-stream; afterwards both read models must equal the command side exactly,
 * and again after each is replayed from offset 0.
 */
describe('read side end to end, through location-command', () => {
  const suffix = uniqueSuffix();
  const seed = Number(process.env['LX_E2E_SEED'] ?? Date.now() % 1_000_000);
  const rng = random(seed);
  const region = `E2E-${suffix}`;
  const localities = ['North', 'South', 'East'].map((name) => `${name}-${suffix}`);
  const postalCodes = ['P1', 'P2', 'P3', 'P4', 'P5'].map((code) => `${code}-${suffix}`);
  const databaseUrl = requireEnv('DATABASE_URL');
  const kafka = testKafka();
  let issuer: TestTokenIssuer;
  let writeToken: string;
  let readToken: string;
  let command: ServiceProcess;
  let query: ServiceProcess;
  let statistics: ServiceProcess;
  const schemas = { command: `e2e_lc_${suffix}`, query: `e2e_lq_${suffix}`, statistics: `e2e_sp_${suffix}` };
  const groups = { query: `e2e-lq-${suffix}`, statistics: `e2e-sp-${suffix}` };
  const dbs: Record<'query' | 'statistics', Client> = {} as never;
  const locationGroupIds: string[] = [];
  const addressGroupIds: string[] = [];
  const ids: string[] = [];
  let midRun = '';

  // Test tokens live ten minutes and this test runs longer: fresh ones every five.
  let tokensAt = 0;
  async function tokens() {
    if (Date.now() - tokensAt > 300_000) {
      writeToken = await issuer.token({ scopes: ['locations:write'] });
      readToken = await issuer.token({ scopes: ['locations:read'] });
      tokensAt = Date.now();
    }
    return { write: writeToken, read: readToken };
  }

  async function call(
    service: ServiceProcess,
    method: string,
    path: string,
    body?: unknown,
    scope: 'read' | 'write' = 'write',
  ) {
    const token = (await tokens())[scope];
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined
          ? {}
          : { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      etag: response.headers.get('etag'),
      body: text === '' ? undefined : JSON.parse(text),
    };
  }

  beforeAll(async () => {
    issuer = await startTestTokenIssuer();
    await tokens();
    // One test client reads every location back at once: the rate limit (tested on its own) would refuse it.
    const base = { ...process.env, ...issuer.env, LOG_LEVEL: 'warn', RATE_LIMITS: 'RSP=off' };
    const queryEnv = { ...base, DATABASE_SCHEMA: schemas.query, PROJECTION_GROUP_ID: groups.query };
    const statisticsEnv = { ...base, DATABASE_SCHEMA: schemas.statistics, PROJECTION_GROUP_ID: groups.statistics };
    // Both projections start where the topics end now: migrate, store that position, then start.
    await Promise.all([
      runServiceCli('location-query', ['migrate'], queryEnv),
      runServiceCli('statistics-projection', ['migrate'], statisticsEnv),
    ]);
    await storeLogEndAsPosition({
      databaseUrl,
      kafka,
      schema: schemas.query,
      groupId: groups.query,
      topics: LOCATION_TOPICS,
    });
    await storeLogEndAsPosition({
      databaseUrl,
      kafka,
      schema: schemas.statistics,
      groupId: groups.statistics,
      topics: [TOPICS.locationEvents.name],
    });
    [command, query, statistics] = await Promise.all([
      startServiceProcess('location-command', {
        ...base,
        DATABASE_SCHEMA: schemas.command,
        OUTBOX_POLL_INTERVAL_MS: '20',
      }),
      startServiceProcess('location-query', queryEnv),
      startServiceProcess('statistics-projection', statisticsEnv),
    ]);
    for (const [key, schema] of [
      ['query', schemas.query],
      ['statistics', schemas.statistics],
    ] as const) {
      dbs[key] = new Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
      await dbs[key].connect();
    }
  }, 240_000);

  afterAll(async () => {
    await Promise.all([command?.stop(), query?.stop(), statistics?.stop()]);
    for (const db of Object.values(dbs)) {
      for (const schema of Object.values(schemas))
        await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
      await db.end();
    }
    await issuer?.close();
  }, 60_000);

  /** The command side's current state of every location: its body and version (ETag). */
  async function commandState(): Promise<Map<string, { location: Location; version: number }>> {
    const state = new Map<string, { location: Location; version: number }>();
    for (let start = 0; start < ids.length; start += 50) {
      const replies = await Promise.all(
        ids.slice(start, start + 50).map((id) => call(command, 'GET', `/operator/locations/${id}`)),
      );
      replies.forEach((reply, index) => {
        expect(reply.status).toBe(200);
        state.set(ids[start + index]!, {
          location: reply.body as Location,
          version: Number(reply.etag!.replace(/"/g, '')),
        });
      });
    }
    return state;
  }

  async function projectedVersions(db: Client, table: string, key: string): Promise<Map<string, number>> {
    const { rows } = await db.query<{ id: string; version: number }>(
      `SELECT ${key} AS id, version FROM ${table} WHERE ${key} = ANY($1::uuid[])`,
      [ids],
    );
    return new Map(rows.map((row) => [row.id, row.version]));
  }

  async function waitForProjections(state: Map<string, { version: number }>): Promise<void> {
    const caughtUp = async (db: Client, table: string, key: string) => {
      const versions = await projectedVersions(db, table, key);
      return [...state].every(([id, { version }]) => versions.get(id) === version);
    };
    await waitFor('location-query at the command versions', () => caughtUp(dbs.query, 'locations', 'id'), 120_000);
    await waitFor(
      'statistics at the command versions',
      () => caughtUp(dbs.statistics, 'location_facts', 'location_id'),
      120_000,
    );
  }

  function randomBody(): Record<string, unknown> {
    const shape = rng.pick(['address', 'coordinates', 'both'] as const);
    const body: Record<string, any> = {
      geography: { country: 'US', region, locality: rng.pick(localities), postalCode: rng.pick(postalCodes) },
    };
    if (shape !== 'coordinates') {
      body['address'] = {
        streetNumber: String(1 + Math.floor(rng.next() * 999)),
        streetName: 'Main',
        streetType: 'ST',
      };
      if (rng.chance(0.3)) body['address'].addressGroupId = rng.pick(addressGroupIds);
    }
    if (shape !== 'address') body['coordinates'] = { latitude: rng.next() * 90, longitude: rng.next() * 180 - 90 };
    if (rng.chance(0.8)) body['fiberAccessDetails'] = { serviceability: { status: rng.pick(STATUSES.slice(0, 4)) } };
    if (rng.chance(0.6)) body['locationGroupId'] = rng.pick(locationGroupIds);
    return body;
  }

  /** One random write; a rejected one (a terminal status, say) is part of the sequence too. */
  async function randomOperation(): Promise<void> {
    if (ids.length < 50 || rng.chance(0.2)) {
      const reply = await call(command, 'POST', '/operator/locations', randomBody());
      expect(reply.status).toBe(201);
      ids.push(reply.body.id);
      return;
    }
    const id = rng.pick(ids);
    const kind = rng.pick(['status', 'status', 'group', 'addressGroup', 'shape', 'geography', 'noStatus'] as const);
    const patch: Record<string, unknown> =
      kind === 'status'
        ? { fiberAccessDetails: { serviceability: { status: rng.pick(STATUSES) } } }
        : kind === 'group'
          ? { locationGroupId: rng.chance(0.3) ? null : rng.pick(locationGroupIds) }
          : kind === 'addressGroup'
            ? {
                address: {
                  streetNumber: '7',
                  streetName: 'Side',
                  streetType: 'AVE',
                  addressGroupId: rng.chance(0.3) ? null : rng.pick(addressGroupIds),
                },
              }
            : kind === 'shape'
              ? rng.chance(0.5)
                ? { coordinates: null, address: { streetNumber: '1', streetName: 'Shape', streetType: 'ST' } }
                : { address: null, coordinates: { latitude: 10, longitude: 20 } }
              : kind === 'geography'
                ? { geography: { locality: rng.pick(localities), postalCode: rng.pick(postalCodes) } }
                : { fiberAccessDetails: null };
    const reply = await call(command, 'PATCH', `/operator/locations/${id}`, patch);
    expect([200, 400]).toContain(reply.status);
    if (reply.status === 400) expect(reply.body.error.code).toBe('INVALID_STATUS_TRANSITION');
  }

  /** Filter combinations over this test's data, with the same predicate in TypeScript. */
  function filterCases(): [string, (location: Location) => boolean][] {
    const status = (location: Location) => location.fiberAccessDetails?.serviceability?.status;
    const scoped = `region=${region}`;
    return [
      [scoped, () => true],
      [`country=US&${scoped}&status=ACTIVE`, (l) => status(l) === 'ACTIVE'],
      [`${scoped}&status=CANCELLED,RETIRED`, (l) => status(l) === 'CANCELLED' || status(l) === 'RETIRED'],
      [`${scoped}&hasAddress=false`, (l) => l.address === undefined],
      [
        `${scoped}&hasCoordinates=true&hasLocationGroup=false`,
        (l) => l.coordinates !== undefined && l.locationGroupId === undefined,
      ],
      [`locality=${localities[0]}`, (l) => l.geography.locality === localities[0]],
      [
        `locality=${localities[1]}&status=PLANNED,CONSTRUCTION`,
        (l) => l.geography.locality === localities[1] && ['PLANNED', 'CONSTRUCTION'].includes(status(l) ?? ''),
      ],
      [`postalCode=${postalCodes[2]}`, (l) => l.geography.postalCode === postalCodes[2]],
      [`locationGroupId=${locationGroupIds[0]}`, (l) => l.locationGroupId === locationGroupIds[0]],
      [
        `locationGroupId=${locationGroupIds[1]}&hasAddress=true&status=ACTIVE`,
        (l) => l.locationGroupId === locationGroupIds[1] && l.address !== undefined && status(l) === 'ACTIVE',
      ],
      [`addressGroupId=${addressGroupIds[0]}`, (l) => l.address?.addressGroupId === addressGroupIds[0]],
      [`${scoped}&modifiedSince=${midRun}`, (l) => Date.parse(l.updatedAt) > Date.parse(midRun)],
      [
        `locality=${localities[2]}&modifiedBefore=${midRun}&hasLocationGroup=true`,
        (l) =>
          l.geography.locality === localities[2] &&
          Date.parse(l.updatedAt) < Date.parse(midRun) &&
          l.locationGroupId !== undefined,
      ],
    ];
  }

  async function expectReadModelsEqualCommandSide(when: string): Promise<void> {
    const state = await commandState();
    await waitForProjections(state);
    for (let start = 0; start < ids.length; start += 50) {
      const batch = ids.slice(start, start + 50);
      const replies = await Promise.all(batch.map((id) => call(query, 'GET', `/locations/${id}`, undefined, 'read')));
      replies.forEach((reply, index) => {
        const expected = state.get(batch[index]!)!;
        expect({ when, id: batch[index], status: reply.status, etag: reply.etag, body: reply.body }).toEqual({
          when,
          id: batch[index],
          status: 200,
          etag: `"${expected.version}"`,
          body: expected.location,
        });
      });
    }
    const locations = [...state.values()].map((entry) => entry.location);
    for (const [filter, keep] of filterCases()) {
      const reply = await call(statistics, 'GET', `/locations/statistics?${filter}`, undefined, 'read');
      expect(reply.status).toBe(200);
      const { queryTimestamp: _queryTimestamp, ...counts } = reply.body as Counts & { queryTimestamp: string };
      const [where, values] = recountWhere(filter);
      const recounted = await recountFacts(dbs.statistics, where, values);
      expect({ when, filter, counts }).toEqual({ when, filter, counts: expectedCounts(locations.filter(keep)) });
      expect({ when, filter, recounted }).toEqual({ when, filter, recounted: counts });
    }
    const agreement = await countersAgreeWithFacts(dbs.statistics);
    expect(agreement.counters).toEqual(agreement.facts);
    expect(agreement.geoByRegion).toEqual(agreement.factsByRegion);
    expect(agreement.rollups).toEqual(agreement.factsByRollup);
  }

  it(
    'applies a randomized sequence of writes exactly in both projections, across SIGKILLs and replays',
    async () => {
      process.stdout.write(`read-side e2e: seed ${seed}, ${OPERATIONS} operations\n`);
      for (let index = 0; index < 4; index += 1) {
        const reply = await call(command, 'POST', '/operator/location-groups', {
          name: `E2E ${suffix} ${index}`,
          type: 'OTHER',
        });
        expect(reply.status).toBe(201);
        locationGroupIds.push(reply.body.id);
      }
      for (let index = 0; index < 2; index += 1) {
        const reply = await call(command, 'POST', '/operator/address-groups', {
          name: `E2E MDU ${suffix} ${index}`,
          type: 'MDU_COMPLEX',
        });
        expect(reply.status).toBe(201);
        addressGroupIds.push(reply.body.id);
      }

      let done = 0;
      const interruptions: Promise<void>[] = [];
      const schedule = async () => {
        done += 1;
        if (done === Math.floor(OPERATIONS * 0.3)) interruptions.push(statistics.kill());
        if (done === Math.floor(OPERATIONS * 0.45))
          interruptions.push(Promise.all(interruptions).then(() => statistics.start()));
        if (done === Math.floor(OPERATIONS * 0.5)) midRun = new Date().toISOString();
        if (done === Math.floor(OPERATIONS * 0.6)) interruptions.push(query.kill());
        if (done === Math.floor(OPERATIONS * 0.75))
          interruptions.push(Promise.all(interruptions).then(() => query.start()));
      };
      await Promise.all(
        Array.from({ length: WORKERS }, async () => {
          while (done < OPERATIONS) {
            await randomOperation();
            await schedule();
          }
        }),
      );
      await Promise.all(interruptions);

      // The group reads of location-query follow the command side too.
      for (const id of locationGroupIds) {
        const reply = await call(query, 'GET', `/location-groups/${id}`, undefined, 'read');
        expect(reply.body).toEqual((await call(command, 'GET', `/operator/location-groups/${id}`)).body);
      }

      await expectReadModelsEqualCommandSide('after SIGKILLs');

      // Replays from offset 0 of the whole log run beside the live services; afterwards nothing may differ.
      await Promise.all([
        runServiceCli('location-query', ['replay'], query.env, 20 * 60_000),
        runServiceCli('statistics-projection', ['replay'], statistics.env, 20 * 60_000),
      ]);
      await expectReadModelsEqualCommandSide('after replays');
    },
    40 * 60_000,
  );
});
