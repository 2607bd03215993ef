import type { Clock } from '../ports/clock';
import { jwtExpiry, ServiceTokenProvider } from './service-token.provider';

const jwt = (claims: Record<string, unknown>) =>
  `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.signature`;

class StepClock implements Clock {
  constructor(public time: number) {}
  now(): Date {
    return new Date(this.time);
  }
}

const config = { tokenUrl: 'http://auth/oauth/token', clientId: 'export-worker', clientSecret: 'secret' };

describe('jwtExpiry', () => {
  it('given a JWT with exp, when read, then exp is the expiry', () => {
    expect(jwtExpiry(jwt({ exp: 1_700_000_000 }))).toEqual(new Date(1_700_000_000_000));
  });

  it.each(['opaque', 'a.!!!.c', jwt({ exp: 'soon' }), jwt({})])('given %p, when read, then there is none', (token) => {
    expect(jwtExpiry(token)).toBeUndefined();
  });
});

describe('ServiceTokenProvider', () => {
  it('given a token valid for an hour, when asked again within it, then the grant runs once', async () => {
    const clock = new StepClock(1_000_000_000_000);
    const request = jest.fn(async () => jwt({ exp: clock.time / 1000 + 3600 }));
    const provider = new ServiceTokenProvider(config, clock, request);
    const first = await provider.token();
    clock.time += 3_500_000;
    expect(await provider.token()).toBe(first);
    expect(request).toHaveBeenCalledTimes(1);
    expect(request).toHaveBeenCalledWith(config);
  });

  it('given less than a minute left, when asked, then a new token is fetched', async () => {
    const clock = new StepClock(1_000_000_000_000);
    let issued = 0;
    const request = jest.fn(async () => jwt({ exp: clock.time / 1000 + 3600, n: (issued += 1) }));
    const provider = new ServiceTokenProvider(config, clock, request);
    const first = await provider.token();
    clock.time += 3_541_000;
    expect(await provider.token()).not.toBe(first);
    expect(request).toHaveBeenCalledTimes(2);
  });

  it('given concurrent callers, when no token is cached, then one grant serves them all', async () => {
    const request = jest.fn(async () => jwt({ exp: 4_000_000_000 }));
    const provider = new ServiceTokenProvider(config, new StepClock(0), request);
    const tokens = await Promise.all([provider.token(), provider.token(), provider.token()]);
    expect(new Set(tokens).size).toBe(1);
    expect(request).toHaveBeenCalledTimes(1);
  });

  it('given an invalidated token or one without exp, when asked, then the grant runs again', async () => {
    const request = jest.fn(async () => jwt({ exp: 4_000_000_000 }));
    const provider = new ServiceTokenProvider(config, new StepClock(0), request);
    await provider.token();
    provider.invalidate();
    await provider.token();
    expect(request).toHaveBeenCalledTimes(2);

    const opaque = jest.fn(async () => 'opaque-token');
    const uncached = new ServiceTokenProvider(config, new StepClock(0), opaque);
    await uncached.token();
    await uncached.token();
    expect(opaque).toHaveBeenCalledTimes(2);
  });

  it('given a failing grant, when asked twice, then the failure is not cached', async () => {
    const request = jest
      .fn<Promise<string>, []>()
      .mockRejectedValueOnce(new Error('auth down'))
      .mockResolvedValueOnce(jwt({ exp: 4_000_000_000 }));
    const provider = new ServiceTokenProvider(config, new StepClock(0), request);
    await expect(provider.token()).rejects.toThrow('auth down');
    await expect(provider.token()).resolves.toContain('.');
  });
});
