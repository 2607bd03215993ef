import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { type Location, LOCATION_SNAPSHOT, TOPICS } from '@lx/contracts';
import { aNewLocation, publish, requireEnv, waitFor } from '@lx/testing';
import { type LocationQueryHarness, type Reply, startLocationQuery } from '../support/location-query-harness';

const ids = (reply: Reply) =>
  reply.text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as Location).id);

/**
 * Holds the projection back: locks the stored offsets of the location topic (the projection locks its partition's row
 * before applying a batch), so events published meanwhile stay unapplied until `release`.
 */
async function holdProjection(service: LocationQueryHarness) {
  const client = new Client({
    connectionString: requireEnv('DATABASE_URL'),
    options: `-c search_path=${service.schema}`,
  });
  await client.connect();
  await client.query('BEGIN');
  const { rowCount } = await client.query(
    'SELECT 1 FROM consumer_offsets WHERE group_id = $1 AND topic = $2 FOR UPDATE',
    [service.groupId, TOPICS.locationEvents.name],
  );
  expect(rowCount).toBeGreaterThan(0);
  let released = false;
  return async function release(): Promise<void> {
    if (released) return;
    released = true;
    await client.query('ROLLBACK');
    await client.end();
  };
}

/** A request in flight, and whether it has answered yet. */
function inFlight(request: Promise<Reply>) {
  const state = { answered: false };
  const reply = request.finally(() => {
    state.answered = true;
  });
  return { reply, state };
}

/** The snapshot's catchUp and locationGroupId parameters, with events published straight to the shared topics. */
describe(`GET ${LOCATION_SNAPSHOT.path} with catchUp and locationGroupId`, () => {
  let service: LocationQueryHarness;

  beforeAll(async () => {
    service = await startLocationQuery();
  }, 60_000);

  afterAll(() => service?.close());

  const inReadModel = async (id: string) =>
    ((await service.db.query('SELECT 1 FROM locations WHERE id = $1', [id])).rowCount ?? 0) > 0;

  it('given an event published just before, when asked with catchUp=true, then the snapshot holds it', async () => {
    const location = aNewLocation();
    await publish(service.bus, 'LOCATION_CREATED', location, 1);

    const reply = await service.get(`${LOCATION_SNAPSHOT.path}?catchUp=true`);

    expect(reply.status).toBe(200);
    expect(ids(reply)).toContain(location.id);
    expect(Number(reply.headers[LOCATION_SNAPSHOT.totalCountHeader])).toBe(ids(reply).length);
    expect(Date.parse(String(reply.headers[LOCATION_SNAPSHOT.timestampHeader]))).toBeGreaterThan(Date.now() - 60_000);
  });

  it('given a projection lagging behind, then a snapshot without catchUp misses the event and one with it waits for it', async () => {
    const release = await holdProjection(service);
    try {
      const location = aNewLocation();
      await publish(service.bus, 'LOCATION_CREATED', location, 1);

      const caughtUp = inFlight(service.get(`${LOCATION_SNAPSHOT.path}?catchUp=true`));
      const now = await service.get(LOCATION_SNAPSHOT.path);
      expect(now.status).toBe(200);
      expect(ids(now)).not.toContain(location.id);
      await sleep(600);
      expect(caughtUp.state.answered).toBe(false);
      expect(await inReadModel(location.id)).toBe(false);

      await release();
      const reply = await caughtUp.reply;
      expect(reply.status).toBe(200);
      expect(ids(reply)).toContain(location.id);
    } finally {
      await release();
    }
  });

  it('given locationGroupId, then the count and the rows are the locations of that group only', async () => {
    const groupId = randomUUID();
    const members = [aNewLocation({ locationGroupId: groupId }), aNewLocation({ locationGroupId: groupId })];
    const other = aNewLocation({ locationGroupId: randomUUID() });
    const ungrouped = aNewLocation();
    for (const location of [...members, other, ungrouped]) await publish(service.bus, 'LOCATION_CREATED', location, 1);

    const reply = await service.get(`${LOCATION_SNAPSHOT.path}?catchUp=true&locationGroupId=${groupId.toUpperCase()}`);

    expect(reply.status).toBe(200);
    expect(ids(reply)).toEqual(members.map((location) => location.id).sort());
    expect(reply.headers[LOCATION_SNAPSHOT.totalCountHeader]).toBe('2');

    const recent = await service.get(
      `${LOCATION_SNAPSHOT.path}?locationGroupId=${groupId}&modifiedSince=${encodeURIComponent(members[0]!.updatedAt)}`,
    );
    const expected = members.filter((location) => location.updatedAt > members[0]!.updatedAt).map((l) => l.id);
    expect(ids(recent)).toEqual(expected.sort());
    expect(recent.headers[LOCATION_SNAPSHOT.totalCountHeader]).toBe(String(expected.length));
  });

  it.each([
    ['locationGroupId=not-a-uuid', 'INVALID_FILTER', 'locationGroupId'],
    ['catchUp=yes', 'INVALID_FILTER', 'catchUp'],
    ['catchUp=true&catchUp=true', 'INVALID_FILTER', 'catchUp'],
    ['catchUp=true&modifiedSince=yesterday', 'INVALID_DATE_RANGE', 'modifiedSince'],
  ])('answers ?%s with 400 %s naming the parameter', async (query, code, field) => {
    const reply = await service.get(`${LOCATION_SNAPSHOT.path}?${query}`);

    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe(code);
    expect(reply.body.error.details.issues.map((issue: { field: string }) => issue.field)).toEqual([field]);
  });
});

describe(`GET ${LOCATION_SNAPSHOT.path}?catchUp=true when the projection does not catch up in time`, () => {
  let service: LocationQueryHarness;

  beforeAll(async () => {
    service = await startLocationQuery({ SNAPSHOT_CATCH_UP_TIMEOUT_MS: '400' });
  }, 60_000);

  afterAll(() => service?.close());

  it('answers 503 SERVICE_UNAVAILABLE naming the partitions behind, and 200 once the projection has caught up', async () => {
    const release = await holdProjection(service);
    const location = aNewLocation();
    try {
      await publish(service.bus, 'LOCATION_CREATED', location, 1);

      const reply = await service.get(`${LOCATION_SNAPSHOT.path}?catchUp=true`);

      expect(reply.status).toBe(503);
      expect(reply.body.error).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        message: `the read model did not catch up with ${TOPICS.locationEvents.name} within 400 ms; retry later`,
        details: {
          topic: TOPICS.locationEvents.name,
          timeoutMs: 400,
          // Other tests publish to the shared topic too: their partitions may be behind as well.
          behind: expect.arrayContaining([
            { partition: expect.any(Number), applied: expect.any(String), end: expect.any(String) },
          ]),
        },
      });
    } finally {
      await release();
    }
    await waitFor('the projection to catch up', async () => {
      const reply = await service.get(`${LOCATION_SNAPSHOT.path}?catchUp=true`);
      return reply.status === 200 && ids(reply).includes(location.id);
    });
  });
});
