import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { PAGINATION } from '@lx/contracts';
import { requireEnv, waitFor } from '@lx/testing';
import { type LocationQueryHarness, type Reply, startLocationQuery } from '../support/location-query-harness';

const LOCATIONS = PAGINATION.exactTotalUpTo + 50;
const IN_GROUP = 30;
const STATEMENT_TIMEOUT_MS = 1_000;
const QUEUE_TIMEOUT_MS = 200;

/**
 * Bounded RSP reads against real Postgres: lists capped in offset and paged by id (`after`, `pagination.next`),
 * totals counted up to PAGINATION.exactTotalUpTo and estimated past it, every read under the statement timeout, and
 * list reads held to their scan slots: a read that cannot finish or start in time is 503 with Retry-After.
 */
describe('location-query bounded reads', () => {
  let service: LocationQueryHarness;
  let ids: string[];
  const groupId = randomUUID();

  beforeAll(async () => {
    service = await startLocationQuery({
      RATE_LIMITS: 'RSP=off',
      READ_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      READ_SCAN_CONCURRENCY: '1',
      READ_QUEUE_TIMEOUT_MS: String(QUEUE_TIMEOUT_MS),
    });
    // The read model's rows written directly (the projection's own tests cover how they get there); the first
    // IN_GROUP of them in one location group.
    const { rows } = await service.db.query<{ id: string }>(
      `INSERT INTO locations (id, version, body, location_group_id, updated_at, csv)
       SELECT id, 1, json_build_object('id', id), CASE WHEN n <= $2 THEN $3::uuid END, now(), ''
         FROM (SELECT gen_random_uuid() AS id, n FROM generate_series(1, $1) AS n) AS drawn
       RETURNING id::text`,
      [LOCATIONS, IN_GROUP, groupId],
    );
    ids = rows.map((row) => row.id).sort();
    await service.db.query('ANALYZE locations');
    // One scrape now, so the table sizes have values to keep while the table is locked below.
    expect((await service.get('/metrics', { token: null })).text).toMatch(/^db_table_size_bytes\{table="locations"\}/m);
  }, 120_000);

  afterAll(async () => {
    await service?.close();
  });

  const idsOf = (reply: Reply) => (reply.body.locations as { id: string }[]).map((location) => location.id);

  it('pages the whole list by after, each page naming the next; the total past the exact count is an estimate', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    for (;;) {
      const reply = await service.get(`/locations?limit=1000${after === undefined ? '' : `&after=${after}`}`);
      expect(reply.status).toBe(200);
      pages += 1;
      const { pagination } = reply.body;
      expect(pagination.totalEstimated).toBe(true);
      expect(pagination.total).toBeGreaterThan(PAGINATION.exactTotalUpTo);
      expect(Math.abs(pagination.total - LOCATIONS)).toBeLessThanOrEqual(LOCATIONS * 0.05);
      seen.push(...idsOf(reply));
      if (pagination.next === undefined) break;
      expect(pagination.next).toBe(seen[seen.length - 1]);
      after = pagination.next;
    }
    expect(pages).toBe(Math.ceil(LOCATIONS / 1000));
    expect(seen).toEqual(ids);
  });

  it('counts exactly up to the cap, and pages a filtered list by after too', async () => {
    const members = (
      await service.db.query<{ id: string }>(
        'SELECT id::text FROM locations WHERE location_group_id = $1 ORDER BY id',
        [groupId],
      )
    ).rows.map((row) => row.id);
    const first = await service.get(`/locations?locationGroupId=${groupId}&limit=20`);
    expect(first.body.pagination).toEqual({ limit: 20, offset: 0, total: IN_GROUP, next: members[19] });
    const second = await service.get(`/locations?locationGroupId=${groupId}&limit=20&after=${members[19]}`);
    expect(second.body.pagination).toEqual({ limit: 20, offset: 0, total: IN_GROUP });
    expect([...idsOf(first), ...idsOf(second)]).toEqual(members);
  });

  it('serves offsets up to the cap and refuses deeper ones, a bad after and after with an offset, naming each', async () => {
    const deepest = await service.get(`/locations?limit=3&offset=${PAGINATION.maxOffset}`);
    expect(deepest.status).toBe(200);
    expect(idsOf(deepest)).toEqual(ids.slice(PAGINATION.maxOffset, PAGINATION.maxOffset + 3));
    expect(deepest.body.pagination.next).toBe(ids[PAGINATION.maxOffset + 2]);

    const tooDeep = await service.get(`/locations?offset=${PAGINATION.maxOffset + 1}`);
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.error.code).toBe('INVALID_OFFSET');
    expect(tooDeep.body.error.details.issues).toEqual([
      expect.objectContaining({ field: 'offset', message: expect.stringContaining('after') }),
    ]);
    const badAfter = await service.get('/locations?after=nope');
    expect(badAfter.status).toBe(400);
    expect(badAfter.body.error.details.issues).toEqual([expect.objectContaining({ field: 'after', rule: 'uuid' })]);
    const both = await service.get(`/locations?after=${ids[0]}&offset=5`);
    expect(both.status).toBe(400);
    expect(both.body.error.details.issues).toEqual([expect.objectContaining({ field: 'offset', rule: 'withAfter' })]);
  });

  it('pages a group list by after in id order', async () => {
    const groups = Array.from({ length: 5 }, () => randomUUID()).sort();
    for (const [index, id] of groups.entries()) {
      await service.db.query(
        `INSERT INTO location_groups (id, version, name, type, deleted, changed_at) VALUES ($1, 1, $2, 'OTHER', false, now())`,
        [id, `bounded ${4 - index}`],
      );
    }
    const byName = await service.get('/location-groups?name=bounded&limit=2');
    expect(byName.body.locationGroups.map((group: { id: string }) => group.id)).toEqual([groups[4], groups[3]]);
    expect(byName.body.pagination).toEqual({ limit: 2, offset: 0, total: 5 });

    const byId = await service.get(`/location-groups?name=bounded&limit=2&after=${groups[0]}`);
    expect(byId.body.locationGroups.map((group: { id: string }) => group.id)).toEqual([groups[1], groups[2]]);
    expect(byId.body.pagination).toEqual({ limit: 2, offset: 0, total: 5, next: groups[2] });
  });

  describe('with the table locked by another transaction', () => {
    let locker: Client;

    beforeEach(async () => {
      locker = new Client({
        connectionString: requireEnv('DATABASE_URL'),
        options: `-c search_path=${service.schema}`,
      });
      await locker.connect();
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE locations IN ACCESS EXCLUSIVE MODE');
    });

    afterEach(async () => {
      await locker.query('ROLLBACK');
      await locker.end();
    });

    it('cancels a read at the statement timeout: 503 with Retry-After', async () => {
      const started = Date.now();
      const reply = await service.get(`/locations/${ids[0]}`);
      expect(reply.status).toBe(503);
      expect(Date.now() - started).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS - 50);
      expect(reply.headers['retry-after']).toBe('1');
      expect(reply.body.error).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        details: { reason: 'statementTimeout', timeoutMs: STATEMENT_TIMEOUT_MS },
      });
    });

    it('answers a list that finds every scan slot taken past the queue timeout 503 busy, without running it', async () => {
      const holding = service.get('/locations?limit=1');
      // The first list holds the only scan slot, waiting on the lock.
      await waitFor(
        'the first list to wait on the lock in the scan slot',
        async () =>
          (
            await service.db.query(
              `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%string_agg%'`,
            )
          ).rowCount === 1,
        STATEMENT_TIMEOUT_MS / 2,
      );
      const started = Date.now();
      const refused = await service.get('/locations?limit=1');
      const waited = Date.now() - started;
      expect(refused.status).toBe(503);
      expect(refused.body.error.details).toEqual({ reason: 'busy', waitedMs: QUEUE_TIMEOUT_MS });
      expect(waited).toBeGreaterThanOrEqual(QUEUE_TIMEOUT_MS - 20);
      expect(waited).toBeLessThan(STATEMENT_TIMEOUT_MS - 100);
      expect((await holding).body.error.details.reason).toBe('statementTimeout');
      // The scrape does not wait for the lock either: the table sizes give up after a second and keep their values.
      const scrapeStarted = Date.now();
      const metrics = await service.get('/metrics', { token: null });
      expect(metrics.status).toBe(200);
      expect(Date.now() - scrapeStarted).toBeLessThan(3_000);
      expect(metrics.text).toMatch(/^db_table_size_bytes\{table="locations"\} [1-9]/m);
    });
  });

  it('serves reads again once the lock is gone, and has counted the refusals by reason', async () => {
    expect((await service.get(`/locations/${ids[0]}`)).status).toBe(200);
    expect((await service.get('/locations?limit=1')).status).toBe(200);
    const metrics = await service.get('/metrics', { token: null });
    expect(metrics.text).toMatch(/^db_read_refused_total\{reason="statementTimeout"\} 2$/m);
    expect(metrics.text).toMatch(/^db_read_refused_total\{reason="busy"\} 1$/m);
  });
});
