import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createServiceApp, PurgeRateLimitCountsSchedule, RateLimitSync } from '@lx/platform';
import { waitFor } from '@lx/testing';
import { AppModule } from '../../src/app.module';
import { loadLocationQueryConfig } from '../../src/config/location-query.config';
import { type LocationQueryHarness, startLocationQuery } from '../support/location-query-harness';

/**
 * Per-client rate limits of the RSP read API against real Postgres: the quota of the client's kind, 429 with
 * Retry-After and the RateLimit fields past it, counted across replicas through the shared table.
 */
describe('location-query rate limits', () => {
  let service: LocationQueryHarness;
  /** A second replica of the same service: same schema, same consumer group. */
  let replica: NestFastifyApplication;

  beforeAll(async () => {
    service = await startLocationQuery({ RATE_LIMITS: 'RSP=20/60,ADMIN=5/60,OPERATOR=off', RATE_LIMIT_SYNC_MS: '100' });
    const config = loadLocationQueryConfig(service.env);
    replica = await createServiceApp('location-query', AppModule.register(config), config.http);
    await replica.init();
    await replica.getHttpAdapter().getInstance().ready();
  }, 60_000);

  afterAll(async () => {
    await replica?.close();
    await service?.close();
  });

  const get = async (app: NestFastifyApplication, url: string, token: string) => {
    const reply = await app
      .getHttpAdapter()
      .getInstance()
      .inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    return { status: reply.statusCode, headers: reply.headers, body: reply.json() };
  };
  /**
   * Waits, if the 60 s window under way ends within 15 s, for the next one: a test that spans two windows would see
   * its first requests weighted down by the sliding window (every test uses clients of its own, so nothing else counts).
   */
  const inOneWindow = async () => {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
  };
  /**
   * A whole sync round of a replica that starts now: `execute` joins a round already under way (the background one,
   * every 100 ms), which may have started before the requests just made, so a second one follows it.
   */
  const syncNow = async (app: NestFastifyApplication) => {
    await app.get(RateLimitSync).execute();
    await app.get(RateLimitSync).execute();
  };
  const tokenOf = (clientId: string, kind?: string) => service.issuer.token({ clientId, kind });
  /** The requests the shared table holds for a client (over its windows). */
  const sharedCount = async (clientId: string) =>
    Number(
      (
        await service.db.query<{ n: string }>(
          "SELECT coalesce(sum(requests), 0) AS n FROM rate_limit_counts WHERE subject LIKE $1 || '/%'",
          [clientId],
        )
      ).rows[0]!.n,
    );

  it('admits a client up to the quota of its kind, with the RateLimit fields, then answers 429 with Retry-After', async () => {
    await inOneWindow();
    const clientId = randomUUID();
    const token = await tokenOf(clientId, 'RSP');
    const replies = [];
    for (let i = 0; i < 20; i += 1) replies.push(await get(service.app, `/locations/${randomUUID()}`, token));

    expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 404));
    expect(replies[0]!.headers['ratelimit-policy']).toBe('"rsp";q=20;w=60');
    expect(replies.map((reply) => /^"rsp";r=(\d+);t=\d+$/.exec(String(reply.headers['ratelimit']))?.[1])).toEqual(
      Array.from({ length: 20 }, (_, i) => String(19 - i)),
    );

    const refused = await get(service.app, '/locations?limit=1', token);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      details: { retryAfterSeconds: expect.any(Number) },
    });
    expect(refused.body.error.message).toBe('at most 20 requests per 60 s for a client of kind RSP');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBe(refused.body.error.details.retryAfterSeconds);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(120);
    expect(refused.headers['ratelimit-policy']).toBe('"rsp";q=20;w=60');
    expect(refused.headers['ratelimit']).toMatch(/^"rsp";r=0;t=\d+$/);
    expect(refused.headers['x-content-type-options']).toBe('nosniff');

    // Every RSP route of the service counts: groups, digests and the change feed are refused too.
    for (const url of ['/location-groups', '/address-groups/digest', '/locations/changes']) {
      expect((await get(service.app, url, token)).status).toBe(429);
    }
  });

  it('counts each client on its own, by the quota of its kind; a kind that is off is not counted', async () => {
    await inOneWindow();
    const spent = await tokenOf(randomUUID(), 'RSP');
    for (let i = 0; i < 21; i += 1) await get(service.app, '/locations?limit=1', spent);
    expect((await get(service.app, '/locations?limit=1', spent)).status).toBe(429);

    const other = await get(service.app, '/locations?limit=1', await tokenOf(randomUUID(), 'RSP'));
    expect(other.status).toBe(200);
    expect(other.headers['ratelimit']).toMatch(/^"rsp";r=19;t=\d+$/);

    const admin = await tokenOf(randomUUID(), 'ADMIN');
    const adminStatuses = [];
    for (let i = 0; i < 6; i += 1) adminStatuses.push((await get(service.app, '/locations?limit=1', admin)).status);
    expect(adminStatuses).toEqual([200, 200, 200, 200, 200, 429]);

    const operatorId = randomUUID();
    const operator = await tokenOf(operatorId, 'OPERATOR');
    const operatorStatuses = [];
    for (let i = 0; i < 30; i += 1)
      operatorStatuses.push((await get(service.app, '/locations?limit=1', operator)).status);
    expect(new Set(operatorStatuses)).toEqual(new Set([200]));
    expect((await get(service.app, '/locations?limit=1', operator)).headers['ratelimit']).toBeUndefined();
    await syncNow(service.app);
    expect(await sharedCount(operatorId)).toBe(0);
  });

  it('counts a token without a kind (issued before tokens named it) as an RSP', async () => {
    const token = await tokenOf(randomUUID());
    const reply = await get(service.app, '/locations?limit=1', token);
    expect(reply.headers['ratelimit-policy']).toBe('"rsp";q=20;w=60');
  });

  it('counts a client across replicas: what one replica admitted is spent on the other', async () => {
    await inOneWindow();
    const clientId = randomUUID();
    const token = await tokenOf(clientId, 'RSP');
    for (let i = 0; i < 12; i += 1) expect((await get(service.app, '/locations?limit=1', token)).status).toBe(200);
    // The first replica's sync adds its twelve to the table; the second reads them with its own next sync.
    await waitFor('the first replica to share its count', async () => (await sharedCount(clientId)) === 12, 10_000);
    await get(replica, '/locations?limit=1', token);
    await syncNow(replica);

    const statuses = [];
    for (let i = 0; i < 10; i += 1) statuses.push((await get(replica, '/locations?limit=1', token)).status);
    // 12 + 1 + 7 = 20: seven more on the second replica, then refused (each replica alone would have admitted 20).
    expect(statuses).toEqual([...Array.from({ length: 7 }, () => 200), 429, 429, 429]);
    await syncNow(service.app);
    await syncNow(replica);
    expect(await sharedCount(clientId)).toBe(20);
  });

  it('deletes, once a minute, the rows of windows no policy looks at any more, and keeps the others', async () => {
    const subject = `${randomUUID()}/60`;
    const current = Math.floor(Date.now() / 1000 / 60) * 60;
    // The longest window is 60 s: the one under way and the one before it stay, older ones go.
    await service.db.query(
      'INSERT INTO rate_limit_counts (subject, window_start, requests) VALUES ($1, 60, 3), ($1, $2, 2), ($1, $3, 1)',
      [subject, current - 60, current],
    );

    expect(await service.app.get(PurgeRateLimitCountsSchedule).execute()).toBeGreaterThanOrEqual(1);

    const left = await service.db.query<{ window_start: string }>(
      'SELECT window_start FROM rate_limit_counts WHERE subject = $1 ORDER BY window_start',
      [subject],
    );
    expect(left.rows.map((row) => Number(row.window_start))).toEqual([current - 60, current]);
  });
});
