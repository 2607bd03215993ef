import { randomUUID } from 'node:crypto';
import { type StatisticsHarness, startStatistics } from '../support/statistics-harness';

/** GET /locations/statistics counts against the caller's rate limit, in this service's own table. */
describe('statistics rate limit', () => {
  let service: StatisticsHarness;

  beforeAll(async () => {
    service = await startStatistics({ RATE_LIMITS: 'RSP=3/3600' });
  }, 60_000);

  afterAll(() => service?.close());

  it('admits a client up to its quota, then answers 429 with Retry-After and the RateLimit fields', async () => {
    // Within one hour's window: across its end the sliding window would weigh the first requests down.
    const left = 3_600_000 - (Date.now() % 3_600_000);
    if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
    const token = await service.issuer.token({ clientId: randomUUID(), kind: 'RSP' });
    const replies = [];
    for (let i = 0; i < 4; i += 1) replies.push(await service.get('/locations/statistics', { token }));

    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 429]);
    expect(replies.map((reply) => reply.headers['ratelimit-policy'])).toEqual(replies.map(() => '"rsp";q=3;w=3600'));
    expect(replies.map((reply) => String(reply.headers['ratelimit']).replace(/;t=\d+$/, ''))).toEqual([
      '"rsp";r=2',
      '"rsp";r=1',
      '"rsp";r=0',
      '"rsp";r=0',
    ]);
    expect(replies[3]!.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(replies[3]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Another client has a quota of its own.
    const other = await service.get('/locations/statistics', {
      token: await service.issuer.token({ clientId: randomUUID() }),
    });
    expect(other.status).toBe(200);
  });
});
