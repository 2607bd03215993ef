import { randomUUID } from 'node:crypto';
import {
  ALL_SCOPES,
  API_OPERATIONS,
  errorBodySchema,
  type ExportListReply,
  exportListReplySchema,
  type RegisteredClient,
  type Scope,
  SCOPES,
} from '@lx/contracts';
import { requireEnv } from '@lx/testing';
import {
  ApiClient,
  awaitLocationGroup,
  awaitSubscription,
  ClientRegistry,
  conforming,
  describeReply,
  type HttpReply,
  OperatorApi,
  readOk,
} from './support/api';
import { requestExport } from './support/exports';
import {
  sendWith,
  tokenOfUnknownKeyId,
  tokenOfUntrustedKey,
  tokenWithEditedScope,
  unsignedToken,
} from './support/tokens';

/**
 * Every public operation through the ingress refuses callers it must refuse, in the spec's error shape: no token,
 * a garbage token, a token the API must not trust (signed by a key it does not publish, its scope edited after
 * signing, unsigned, naming a key it never published) with 401 UNAUTHORIZED and a WWW-Authenticate challenge; a
 * genuine token of every client kind that lacks the operation's scope with 403 FORBIDDEN; and one RSP's export is
 * 404 to another RSP.
 *
 * Not tested here, because no such token can be had through the public API: an *expired* token and a token for
 * *another audience*, each signed by the trusted key. Every service verifies `exp` and `aud` (JwtAccessTokenVerifier
 * in libs/platform/src/auth/access-token.verifier.ts: audience AUTH_AUDIENCE, 5 s clock tolerance), but tokens are
 * signed only by auth, with a private key that never leaves it (sealed in its database; the ingress does not route
 * /admin/keys), always with `aud` = AUTH_AUDIENCE (the token endpoint takes no audience or resource parameter) and a
 * lifetime of TOKEN_TTL_SECONDS (at least 60 s; 3600 s in the local stack): an expired one would take over an hour to
 * wait for, and one faked with a key of our own would only test the signature check, which the cases below cover.
 * Both are covered where the signing key is at hand: services/auth/test/integration/resource-service-guard.int-spec.ts
 * signs with auth's real current key (its SigningKeyStore) an expired, a not-yet-valid, a future-issued, an
 * other-issuer and an other-audience token and checks that each is 401 UNAUTHORIZED with its reason and challenge,
 * through the AuthenticationModule of @lx/platform that every service uses; libs/platform/src/auth/
 * authentication.spec.ts checks the same cases (expired, other issuer, other audience, ...) against a JWKS at unit
 * level, and access-token.verifier.spec.ts checks expiry.
 */

const MISSING = randomUUID();
const EVERY_SCOPE = ALL_SCOPES.join(' ');
const CHALLENGE = 'Bearer realm="location-exchange"';

/** One public operation: how to call it, the scope it needs, and its status for a caller holding that scope. */
interface Operation {
  method: string;
  path: string;
  scope: Scope;
  body?: unknown;
  contentType?: string;
  /**
   * What a caller with the scope gets: the inputs are chosen (unknown ids, invalid bodies) so that the call changes
   * nothing; it proves that the route exists behind the ingress and that the table names its scope.
   */
  allowed: number;
}

const read = SCOPES.locationsRead;
const write = SCOPES.locationsWrite;
const operatorGroupRoutes = (collection: string): Operation[] => [
  { method: 'POST', path: `/operator/${collection}`, scope: write, body: {}, allowed: 400 },
  { method: 'GET', path: `/operator/${collection}/${MISSING}`, scope: write, allowed: 404 },
  { method: 'PUT', path: `/operator/${collection}/${MISSING}`, scope: write, body: {}, allowed: 400 },
  {
    method: 'PATCH',
    path: `/operator/${collection}/${MISSING}`,
    scope: write,
    body: { name: 'x' },
    contentType: 'application/merge-patch+json',
    allowed: 404,
  },
  { method: 'DELETE', path: `/operator/${collection}/${MISSING}`, scope: write, allowed: 404 },
];

/**
 * Every public RSP route of the spec (and this API's further RSP routes), the operator's and the admin routes: every
 * operation of the OpenAPI document that needs a token. Written out rather than derived from the contracts' operation
 * table (API_OPERATIONS), because what each call sends and the status it must then get (an unknown id, a body refused
 * before anything is written) is chosen per operation; the first test below fails when the list and the table
 * disagree (an operation missing, extra or listed twice; a method, path or scope that differs).
 */
const OPERATIONS: Operation[] = [
  // RSP reads
  { method: 'GET', path: `/locations/${MISSING}`, scope: read, allowed: 404 },
  { method: 'GET', path: `/locations?locationGroupId=${MISSING}`, scope: read, allowed: 200 },
  { method: 'GET', path: '/locations/changes?limit=1', scope: read, allowed: 200 },
  { method: 'GET', path: '/locations/digest?prefix=0123456', scope: read, allowed: 200 },
  { method: 'GET', path: '/locations/digest/entries?prefix=01234567', scope: read, allowed: 200 },
  { method: 'GET', path: '/location-groups/digest?prefix=0123456', scope: read, allowed: 200 },
  { method: 'GET', path: '/location-groups/digest/entries?prefix=01234567', scope: read, allowed: 200 },
  { method: 'GET', path: '/address-groups/digest?prefix=0123456', scope: read, allowed: 200 },
  { method: 'GET', path: '/address-groups/digest/entries?prefix=01234567', scope: read, allowed: 200 },
  { method: 'GET', path: `/locations/statistics?locationGroupId=${MISSING}`, scope: read, allowed: 200 },
  { method: 'GET', path: `/location-groups?name=${MISSING}`, scope: read, allowed: 200 },
  { method: 'GET', path: `/location-groups/${MISSING}`, scope: read, allowed: 404 },
  { method: 'GET', path: `/address-groups?name=${MISSING}`, scope: read, allowed: 200 },
  { method: 'GET', path: `/address-groups/${MISSING}`, scope: read, allowed: 404 },
  // RSP exports
  {
    method: 'POST',
    path: '/locations/exports',
    scope: read,
    body: { format: 'json', filters: { locationGroupId: MISSING } },
    allowed: 400,
  },
  { method: 'GET', path: '/locations/exports?limit=1', scope: read, allowed: 200 },
  { method: 'GET', path: `/locations/exports/${MISSING}`, scope: read, allowed: 404 },
  { method: 'POST', path: `/locations/exports/${MISSING}/link`, scope: read, allowed: 404 },
  // RSP webhooks
  { method: 'GET', path: '/webhooks/deliveries?limit=1', scope: read, allowed: 200 },
  { method: 'GET', path: `/webhooks/deliveries/${MISSING}`, scope: read, allowed: 404 },
  { method: 'POST', path: `/webhooks/deliveries/${MISSING}/redeliver`, scope: read, allowed: 404 },
  { method: 'GET', path: '/webhooks/subscription', scope: read, allowed: 200 },
  { method: 'PUT', path: '/webhooks/subscription', scope: read, body: { eventTypes: [] }, allowed: 400 },
  // The operator's write API
  { method: 'POST', path: '/operator/locations', scope: write, body: {}, allowed: 400 },
  { method: 'GET', path: `/operator/locations/${MISSING}`, scope: write, allowed: 404 },
  { method: 'PUT', path: `/operator/locations/${MISSING}`, scope: write, body: {}, allowed: 400 },
  {
    method: 'PATCH',
    path: `/operator/locations/${MISSING}`,
    scope: write,
    body: { notes: 'x' },
    contentType: 'application/merge-patch+json',
    allowed: 404,
  },
  ...operatorGroupRoutes('location-groups'),
  ...operatorGroupRoutes('address-groups'),
  // A header without any record: a merge import of nothing, refused as empty (past authorisation, before any write).
  { method: 'POST', path: '/operator/imports', scope: write, body: 'id\r\n', contentType: 'text/csv', allowed: 400 },
  // Administration
  { method: 'GET', path: '/admin/clients?limit=1', scope: SCOPES.authAdmin, allowed: 200 },
  { method: 'POST', path: '/admin/clients', scope: SCOPES.authAdmin, body: {}, allowed: 400 },
  { method: 'GET', path: `/admin/clients/${MISSING}`, scope: SCOPES.authAdmin, allowed: 404 },
  { method: 'PATCH', path: `/admin/clients/${MISSING}`, scope: SCOPES.authAdmin, body: { name: 'x' }, allowed: 404 },
  { method: 'POST', path: `/admin/clients/${MISSING}/rotate-secret`, scope: SCOPES.authAdmin, allowed: 404 },
  { method: 'POST', path: `/admin/clients/${MISSING}/disable`, scope: SCOPES.authAdmin, allowed: 404 },
  { method: 'GET', path: '/admin/webhooks/deliveries?limit=1', scope: SCOPES.webhooksAdmin, allowed: 200 },
  { method: 'GET', path: `/admin/webhooks/deliveries/${MISSING}`, scope: SCOPES.webhooksAdmin, allowed: 404 },
  {
    method: 'POST',
    path: `/admin/webhooks/deliveries/${MISSING}/redrive`,
    scope: SCOPES.webhooksAdmin,
    allowed: 404,
  },
  { method: 'GET', path: '/admin/webhooks/endpoints', scope: SCOPES.webhooksAdmin, allowed: 200 },
  { method: 'GET', path: `/admin/webhooks/endpoints/${MISSING}`, scope: SCOPES.webhooksAdmin, allowed: 404 },
  {
    method: 'POST',
    path: `/admin/webhooks/endpoints/${MISSING}/redrive`,
    scope: SCOPES.webhooksAdmin,
    body: { since: '2024-01-01T00:00:00Z' },
    allowed: 404,
  },
  { method: 'POST', path: `/admin/webhooks/endpoints/${MISSING}/enable`, scope: SCOPES.webhooksAdmin, allowed: 404 },
];

/** Ways to be unauthenticated, each with the message the 401 must give and its RFC 6750 error attribute. */
const UNAUTHENTICATED = [
  { name: 'no Authorization header', message: 'Missing bearer token', error: undefined },
  {
    name: 'another scheme (Basic)',
    message: 'Authorization header is not "Bearer <token>"',
    error: 'invalid_request',
  },
  { name: 'a garbage bearer token', message: 'The access token is malformed or invalid', error: 'invalid_token' },
  {
    name: 'a token signed by a key the API does not trust',
    message: 'The access token signature is invalid',
    error: 'invalid_token',
  },
  {
    name: 'a genuine RSP token whose scope was edited to every scope after signing',
    message: 'The access token signature is invalid',
    error: 'invalid_token',
  },
  {
    name: 'an unsigned token (alg none)',
    message: 'The access token algorithm is not accepted',
    error: 'invalid_token',
  },
  {
    name: 'a token naming a key id the API never published',
    message: 'The access token was signed by an unknown key',
    error: 'invalid_token',
  },
] as const;
type Unauthenticated = (typeof UNAUTHENTICATED)[number]['name'];

/** The WWW-Authenticate challenge of a 401 (RFC 6750 section 3; quotes in the description become apostrophes). */
const challengeOf = (message: string, error: string | undefined) =>
  error === undefined ? CHALLENGE : `${CHALLENGE}, error="${error}", error_description="${message.replace(/"/g, "'")}"`;

/** What a refusal is made of: status, error body (checked against the spec's shape) and WWW-Authenticate. */
function refusalOf(what: string, reply: HttpReply) {
  return {
    status: reply.status,
    contentType: reply.headers.get('content-type')?.split(';')[0],
    body: conforming(describeReply(what, reply), errorBodySchema, reply.body),
    challenge: reply.headers.get('www-authenticate'),
  };
}

/** `METHOD /path scope`, each path parameter as `{}`: how OPERATIONS and the operation table are compared. */
const listedAs = (operation: Operation) =>
  `${operation.method} ${operation.path.split('?')[0]!.split(MISSING).join('{}')} ${operation.scope}`;
const documentedAs = (operation: (typeof API_OPERATIONS)[number]) =>
  `${operation.method.toUpperCase()} ${operation.path.replace(/\{[^}]+\}/g, '{}')} ${operation.scope}`;

/** The operations the OpenAPI document says count against the caller's rate limit, as `listedAs` names them. */
const RATE_LIMITED = new Set(API_OPERATIONS.filter((operation) => operation.rateLimited === true).map(documentedAs));

describe('the operations this test calls', () => {
  it('are every operation of the OpenAPI document that needs a token, once each, with the scope it documents', () => {
    const documented = API_OPERATIONS.filter((operation) => operation.scope !== null).map(documentedAs);
    expect(OPERATIONS.map(listedAs).sort()).toEqual(documented.sort());
  });
});

describe('security of every public operation through the ingress', () => {
  const baseUrl = requireEnv('BASE_URL');
  let registry: ClientRegistry;
  /** The Authorization header of each way to be unauthenticated. */
  const authorizations = new Map<Unauthenticated, string | undefined>();
  /** Genuine callers of each kind, with the scopes their tokens carry. */
  let callers: { name: string; client: ApiClient; scopes: Scope[] }[];
  /** A caller holding each scope, for the allowed call. */
  let holders: Map<Scope, ApiClient>;
  /** The registration replies (with the client secrets) of the RSP and of the OPERATOR that may only write. */
  let registrations: { rsp: RegisteredClient; writer: RegisteredClient };

  beforeAll(async () => {
    registry = new ClientRegistry(`e2e security ${randomUUID().slice(0, 8)}`);
    const admin = (scope: Scope) =>
      new ApiClient(baseUrl, requireEnv('ADMIN_CLIENT_ID'), requireEnv('ADMIN_CLIENT_SECRET'), scope);
    const [{ client: rsp, registered: rspRegistered }, { client: writer, registered: writerRegistered }, reader] =
      await Promise.all([
        registry.registration('RSP', [SCOPES.locationsRead]),
        registry.registration('OPERATOR', [SCOPES.locationsWrite]),
        registry.register('OPERATOR', [SCOPES.locationsRead]),
      ]);
    registrations = { rsp: rspRegistered, writer: writerRegistered };
    callers = [
      { name: 'an RSP (locations:read)', client: rsp, scopes: [SCOPES.locationsRead] },
      { name: 'an OPERATOR with locations:write only', client: writer, scopes: [SCOPES.locationsWrite] },
      { name: 'an OPERATOR with locations:read only', client: reader, scopes: [SCOPES.locationsRead] },
      { name: 'the ADMIN with auth:admin only', client: admin(SCOPES.authAdmin), scopes: [SCOPES.authAdmin] },
      {
        name: 'the ADMIN with webhooks:admin only',
        client: admin(SCOPES.webhooksAdmin),
        scopes: [SCOPES.webhooksAdmin],
      },
    ];
    holders = new Map([
      [SCOPES.locationsRead, rsp],
      [SCOPES.locationsWrite, writer],
      [SCOPES.authAdmin, callers[3]!.client],
      [SCOPES.webhooksAdmin, callers[4]!.client],
    ]);
    // Every caller's token up front, so that the tests below only measure the API's answers; and the RSP known to
    // the webhook dispatcher (which learns of clients from auth's events), so that its subscription exists.
    await Promise.all([...callers.map(({ client }) => client.accessToken()), awaitSubscription(rsp)]);

    const genuine = await rsp.accessToken();
    authorizations.set('no Authorization header', undefined);
    authorizations.set('another scheme (Basic)', `Basic ${Buffer.from(`${rsp.clientId}:secret`).toString('base64')}`);
    authorizations.set('a garbage bearer token', `Bearer not-a-token-${randomUUID()}`);
    authorizations.set(
      'a token signed by a key the API does not trust',
      `Bearer ${await tokenOfUntrustedKey(genuine, EVERY_SCOPE)}`,
    );
    authorizations.set(
      'a genuine RSP token whose scope was edited to every scope after signing',
      `Bearer ${tokenWithEditedScope(genuine, EVERY_SCOPE)}`,
    );
    authorizations.set('an unsigned token (alg none)', `Bearer ${unsignedToken(genuine, EVERY_SCOPE)}`);
    authorizations.set(
      'a token naming a key id the API never published',
      `Bearer ${await tokenOfUnknownKeyId(genuine, EVERY_SCOPE)}`,
    );
  }, 60_000);

  afterAll(async () => {
    await registry?.disableAll();
  });

  describe.each(OPERATIONS)('$method $path (scope $scope)', (operation) => {
    const what = `${operation.method} ${operation.path}`;
    const send = (authorization: string | undefined) => sendWith(baseUrl, authorization, operation);

    it('refuses every unauthenticated call: 401 UNAUTHORIZED with a Bearer challenge saying why', async () => {
      const refusals = await Promise.all(
        UNAUTHENTICATED.map(async ({ name }) => ({
          case: name,
          ...refusalOf(`${what} with ${name}`, await send(authorizations.get(name))),
        })),
      );
      expect(refusals).toEqual(
        UNAUTHENTICATED.map(({ name, message, error }) => ({
          case: name,
          status: 401,
          contentType: 'application/json',
          body: { error: { code: 'UNAUTHORIZED', message } },
          challenge: challengeOf(message, error),
        })),
      );
    });

    it('refuses the genuine token of every client kind lacking its scope: 403 FORBIDDEN naming the scope', async () => {
      const lacking = callers.filter(({ scopes }) => !scopes.includes(operation.scope));
      expect(lacking.length).toBeGreaterThan(0);
      const refusals = await Promise.all(
        lacking.map(async ({ name, client }) => ({
          caller: name,
          ...refusalOf(`${what} by ${name}`, await send(`Bearer ${await client.accessToken()}`)),
        })),
      );
      const message = `The access token lacks the scope ${operation.scope} this operation needs`;
      expect(refusals).toEqual(
        lacking.map(({ name }) => ({
          caller: name,
          status: 403,
          contentType: 'application/json',
          body: { error: { code: 'FORBIDDEN', message, details: { requiredScope: operation.scope } } },
          challenge: `${CHALLENGE}, error="insufficient_scope", error_description="${message}", scope="${operation.scope}"`,
        })),
      );
    });

    it(`lets a caller holding ${operation.scope} through (${operation.allowed} for inputs that change nothing)`, async () => {
      const holder = holders.get(operation.scope)!;
      const reply = await send(`Bearer ${await holder.accessToken()}`);
      expect({ what, status: reply.status, text: reply.status === operation.allowed ? '' : reply.text }).toEqual({
        what,
        status: operation.allowed,
        text: '',
      });
      // Counted against the caller's rate limit exactly where the OpenAPI document says so.
      expect({ what, rateLimited: reply.headers.has('ratelimit-policy') }).toEqual({
        what,
        rateLimited: RATE_LIMITED.has(listedAs(operation)),
      });
    });
  });

  describe('the token endpoint', () => {
    it.each<[string, Scope, 'rsp' | 'writer']>([
      ['an RSP', SCOPES.locationsWrite, 'rsp'],
      ['an RSP', SCOPES.authAdmin, 'rsp'],
      ['an OPERATOR registered with locations:write only', SCOPES.locationsRead, 'writer'],
    ])(
      'refuses %s a token with %s (400 invalid_scope), so the 403s above cannot be bypassed',
      async (_, scope, who) => {
        const { clientId, clientSecret } = registrations[who];
        const reply = await fetch(`${baseUrl}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: clientId,
            client_secret: clientSecret,
            scope,
          }),
        });
        expect({ status: reply.status, error: ((await reply.json()) as { error?: string }).error }).toEqual({
          status: 400,
          error: 'invalid_scope',
        });
      },
    );
  });

  describe("another RSP's export", () => {
    it('is 404 RESOURCE_NOT_FOUND to an RSP that does not own it, exactly as an unknown id, and absent from its list', async () => {
      const operator = new OperatorApi(await registry.operator());
      const [owner, stranger] = await Promise.all([registry.rsp(), registry.rsp()]);
      const groupId = await operator.createLocationGroup(`e2e security ${randomUUID().slice(0, 8)} empty`);
      await awaitLocationGroup(owner, groupId);
      const { requestId } = await requestExport(owner, { format: 'json', filters: { locationGroupId: groupId } });

      const notFound = (id: string) => ({
        status: 404,
        contentType: 'application/json',
        body: {
          error: {
            code: 'RESOURCE_NOT_FOUND',
            message: expect.stringContaining(id) as unknown,
            details: { resourceType: 'export', resourceId: id },
          },
        },
        challenge: null,
      });
      const unknown = randomUUID();
      const refusals = {
        status: refusalOf('GET by the stranger', await stranger.get(`/locations/exports/${requestId}`)),
        link: refusalOf(
          'POST link by the stranger',
          await stranger.post(`/locations/exports/${requestId}/link`, undefined),
        ),
        unknown: refusalOf('GET of an unknown id', await stranger.get(`/locations/exports/${unknown}`)),
      };
      expect(refusals).toEqual({ status: notFound(requestId), link: notFound(requestId), unknown: notFound(unknown) });
      // The message is the same as for an id that exists nowhere: the foreign export's existence is not revealed.
      expect(refusals.status.body.error.message.replace(requestId, '<id>')).toBe(
        refusals.unknown.body.error.message.replace(unknown, '<id>'),
      );

      const listed = async (client: ApiClient) =>
        conforming(
          'GET /locations/exports',
          exportListReplySchema,
          await readOk<ExportListReply>(client, '/locations/exports?limit=100'),
        ).exports.map((item) => item.requestId);
      expect({ owner: await listed(owner), stranger: await listed(stranger) }).toEqual({
        owner: [requestId],
        stranger: [],
      });
      // The owner reads it.
      expect((await owner.get(`/locations/exports/${requestId}`)).status).toBe(200);
    });
  });
});
