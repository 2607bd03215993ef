import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { Registry } from 'prom-client';
import type { RevocationList } from '@lx/contracts';
import { DependencyUnavailableError } from '@lx/domain';
import { AccessTokenVerifier } from './access-token.verifier';
import { AuthenticationError, type Principal } from './authentication.errors';
import { PolledRevocations, RevocationCheckingVerifier, Revocations, RevocationSet } from './revocations';

const CLIENT = '3f6c2a9e-8d1b-4c1e-9a57-0b4b6a1d2c3e';
const OTHER = '9b1d7c3e-2f4a-4b6c-8d0e-1a2b3c4d5e6f';

const principal = (overrides: Partial<Principal> = {}): Principal => ({
  clientId: CLIENT,
  scopes: ['locations:read'],
  tokenId: 'token-1',
  issuedAt: 1_000,
  signingKeyId: 'key-1',
  ...overrides,
});

describe('RevocationSet', () => {
  const set = new RevocationSet({
    clients: [{ clientId: CLIENT, tokensIssuedBefore: 1_000 }],
    signingKeys: ['leaked'],
  });

  it('refuses a token of a listed client issued before its cut-off, and spares one issued at or after it', () => {
    expect(set.refusalOf(principal({ issuedAt: 999 }))).toBe('The access token has been revoked');
    expect(set.refusalOf(principal({ issuedAt: 1_000 }))).toBeUndefined();
    expect(set.refusalOf(principal({ issuedAt: 1_001 }))).toBeUndefined();
  });

  it('refuses every token of a revoked key, and nothing of clients and keys it does not list', () => {
    expect(set.refusalOf(principal({ issuedAt: 5_000, signingKeyId: 'leaked' }))).toBe(
      'The access token was signed by a revoked key',
    );
    expect(set.refusalOf(principal({ clientId: OTHER, issuedAt: 1 }))).toBeUndefined();
    expect(RevocationSet.EMPTY.refusalOf(principal({ issuedAt: 1 }))).toBeUndefined();
  });
});

describe('RevocationCheckingVerifier', () => {
  class Fixed extends AccessTokenVerifier {
    verify = (): Promise<Principal> => Promise.resolve(principal({ issuedAt: 999 }));
  }
  class Listing extends Revocations {
    constructor(private readonly list: RevocationList) {
      super();
    }
    current = () => Promise.resolve(new RevocationSet(this.list));
  }

  it('passes on what the inner verifier accepts unless the list revokes it, then answers 401 invalid_token', async () => {
    const none = new RevocationCheckingVerifier(new Fixed(), new Listing({ clients: [], signingKeys: [] }));
    await expect(none.verify('t')).resolves.toEqual(principal({ issuedAt: 999 }));
    const revoking = new RevocationCheckingVerifier(
      new Fixed(),
      new Listing({ clients: [{ clientId: CLIENT, tokensIssuedBefore: 1_000 }], signingKeys: [] }),
    );
    const refusal = revoking.verify('t');
    await expect(refusal).rejects.toBeInstanceOf(AuthenticationError);
    await expect(refusal).rejects.toMatchObject({ bearerError: 'invalid_token' });
  });
});

describe('PolledRevocations against an HTTP peer', () => {
  let server: Server;
  let url: string;
  let status = 200;
  let list: RevocationList = { clients: [], signingKeys: [] };
  const requests: IncomingHttpHeaders[] = [];
  const pollers: PolledRevocations[] = [];
  const poller = (refreshMs = 50, registry?: Registry) => {
    const polled = new PolledRevocations({ revocationsUrl: url, revocationsRefreshMs: refreshMs }, registry);
    pollers.push(polled);
    return polled;
  };
  const polls = async (count: number) => {
    const until = requests.length + count;
    while (requests.length < until) await new Promise((resolve) => setTimeout(resolve, 10));
  };

  beforeAll(async () => {
    server = createServer((request, response) => {
      requests.push(request.headers);
      const body = JSON.stringify(list);
      const etag = `"${body.length}-${list.signingKeys.join('.')}"`;
      if (status !== 200) {
        response.statusCode = status;
        response.end();
      } else if (request.headers['if-none-match'] === etag) {
        response.statusCode = 304;
        response.end();
      } else {
        response.setHeader('etag', etag);
        response.end(body);
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/internal/revocations`;
  });

  afterEach(() => {
    pollers.splice(0).forEach((polled) => polled.onModuleDestroy());
    status = 200;
    list = { clients: [], signingKeys: [] };
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('cannot verify before a first list has been had (503), and takes one from the next poll that brings it', async () => {
    status = 503;
    const polled = poller(20);
    await expect(polled.current()).rejects.toBeInstanceOf(DependencyUnavailableError);

    status = 200;
    list = { clients: [], signingKeys: ['leaked'] };
    await polls(2);
    expect((await polled.current()).refusalOf(principal({ signingKeyId: 'leaked' }))).toBeDefined();
  });

  it('polls with If-None-Match once it has a list, takes a changed list within a poll, and shares one fetch', async () => {
    const polled = poller();
    const [first, second] = await Promise.all([polled.current(), polled.current()]);
    expect(first).toBe(second);
    await polls(2);
    expect(requests.at(-1)?.['if-none-match']).toMatch(/^"/);
    expect(await polled.current()).toBe(first);

    list = { clients: [], signingKeys: ['leaked'] };
    await polls(2);
    expect((await polled.current()).refusalOf(principal({ signingKeyId: 'leaked' }))).toBeDefined();
  });

  it('keeps the last list through failed polls, counting them and showing its age', async () => {
    const registry = new Registry();
    list = { clients: [{ clientId: CLIENT, tokensIssuedBefore: 1_000 }], signingKeys: [] };
    const polled = poller(20, registry);
    await polled.current();
    status = 500;
    await polls(3);
    expect((await polled.current()).refusalOf(principal({ issuedAt: 999 }))).toBe('The access token has been revoked');
    const metrics = await registry.metrics();
    expect(metrics).toMatch(/^auth_revocations_refresh_failures_total [1-9]/m);
    const age = Number(/^auth_revocations_age_seconds (\S+)$/m.exec(metrics)?.[1]);
    expect(age).toBeGreaterThan(0.01);
  });

  it('applies no list while the auth service serves none (an older release: 404), counting each such poll', async () => {
    const registry = new Registry();
    status = 404;
    const polled = poller(20, registry);
    expect((await polled.current()).refusalOf(principal({ issuedAt: 1 }))).toBeUndefined();
    await polls(2);
    const metrics = await registry.metrics();
    expect(metrics).toMatch(/^auth_revocations_refresh_failures_total [2-9]/m);
    // Never confirmed: the age runs from the start of the polling.
    expect(Number(/^auth_revocations_age_seconds (\S+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0.01);

    status = 200;
    list = { clients: [], signingKeys: ['leaked'] };
    await polls(2);
    expect((await polled.current()).refusalOf(principal({ signingKeyId: 'leaked' }))).toBeDefined();
  });
});
