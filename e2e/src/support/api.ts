import { randomUUID } from 'node:crypto';
import {
  type AddressGroup,
  type ClientKind,
  type Location,
  LOCATION_GROUPINGS,
  LOCATION_SHAPES,
  type LocationGroup,
  parseRetryAfter,
  type RegisteredClient,
  type Scope,
  SCOPES,
  SERVICEABILITY_STATUSES,
  type StatisticsResponse,
  statisticsResponseSchema,
  validate,
} from '@lx/contracts';
import { requireEnv, waitFor } from '@lx/testing';
import type { ZodType, ZodTypeDef } from 'zod';

/** A reply as the tests look at it: status, headers, the raw text and, for JSON replies, the parsed body. */
export interface HttpReply<T = unknown> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

/** What a request was and what came back, for failure messages. */
export const describeReply = (what: string, reply: HttpReply): string =>
  `${what} answered ${reply.status} ${reply.text.slice(0, 2000)}`;

/** Client credentials grant at the ingress's token endpoint (client_secret_post, as the spec shows). */
export async function fetchAccessToken(
  baseUrl: string,
  clientId: string,
  clientSecret: string,
  scope?: string,
): Promise<{ accessToken: string; expiresAt: number }> {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: clientId,
    client_secret: clientSecret,
  });
  if (scope !== undefined) form.set('scope', scope);
  const response = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`token for ${clientId} refused: ${response.status} ${text}`);
  const reply = JSON.parse(text) as { access_token: string; expires_in: number };
  return { accessToken: reply.access_token, expiresAt: Date.now() + reply.expires_in * 1000 };
}

/**
 * An API caller holding client credentials: fetches a token on first use and again shortly before it expires, and
 * sends every request with it through the ingress.
 */
export class ApiClient {
  private token: Promise<{ accessToken: string; expiresAt: number }> | undefined;

  constructor(
    readonly baseUrl: string,
    readonly clientId: string,
    private readonly clientSecret: string,
    private readonly scope?: string,
  ) {}

  async accessToken(): Promise<string> {
    const current = this.token === undefined ? undefined : await this.token.catch(() => undefined);
    if (current === undefined || current.expiresAt - Date.now() < 30_000) {
      this.token = fetchAccessToken(this.baseUrl, this.clientId, this.clientSecret, this.scope);
    }
    return (await this.token!).accessToken;
  }

  async request<T = unknown>(
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<HttpReply<T>> {
    const headers: Record<string, string> = { authorization: `Bearer ${await this.accessToken()}`, ...options.headers };
    if (options.body !== undefined) headers['content-type'] ??= 'application/json';
    let response: Response;
    // A 429 of the read rate limit (the one with the RateLimit fields) is waited out as an RSP would: the checks of a
    // test may read faster than a client's quota allows, against the embedded process above all (no ingress).
    for (let throttled = 0; ; throttled += 1) {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(30_000),
      });
      if (response.status !== 429 || !response.headers.has('ratelimit-policy') || throttled >= 10) break;
      await response.arrayBuffer();
      const waitMs = parseRetryAfter(response.headers.get('retry-after') ?? '', Date.now(), 10_000) ?? 1_000;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
    const text = await response.text();
    const isJson = /^application\/(.+\+)?json/.test(response.headers.get('content-type') ?? '');
    return {
      status: response.status,
      headers: response.headers,
      text,
      body: (isJson && text ? JSON.parse(text) : text) as T,
    };
  }

  get<T = unknown>(path: string, headers?: Record<string, string>): Promise<HttpReply<T>> {
    return this.request<T>('GET', path, { headers });
  }

  post<T = unknown>(path: string, body: unknown, headers?: Record<string, string>): Promise<HttpReply<T>> {
    return this.request<T>('POST', path, { body, headers });
  }
}

/**
 * Registers fresh clients through `POST /admin/clients` with the admin credentials of the environment (unique names,
 * so test files and runs never share a client) and disables them all in `disableAll`, so that a stack that outlives
 * the run keeps no working credentials of it.
 */
export class ClientRegistry {
  readonly baseUrl = requireEnv('BASE_URL');
  private readonly admin = new ApiClient(
    this.baseUrl,
    requireEnv('ADMIN_CLIENT_ID'),
    requireEnv('ADMIN_CLIENT_SECRET'),
    SCOPES.authAdmin,
  );
  private readonly registered: string[] = [];

  constructor(private readonly namePrefix: string) {}

  async register(kind: Exclude<ClientKind, 'ADMIN'>, scopes: Scope[]): Promise<ApiClient> {
    return (await this.registerClient({ kind, scopes })).client;
  }

  /** An RSP with a webhook URL, and the webhook signing secret auth revealed at its registration. */
  async rspWithWebhook(webhookUrl: string): Promise<{ client: ApiClient; webhookSecret: string }> {
    const { client, registered } = await this.registerClient({
      kind: 'RSP',
      scopes: [SCOPES.locationsRead],
      webhookUrl,
    });
    if (registered.webhookSecret === undefined) throw new Error('POST /admin/clients revealed no webhook secret');
    return { client, webhookSecret: registered.webhookSecret };
  }

  private async registerClient(input: {
    kind: Exclude<ClientKind, 'ADMIN'>;
    scopes: Scope[];
    webhookUrl?: string;
  }): Promise<{ client: ApiClient; registered: RegisteredClient }> {
    const name = `${this.namePrefix} ${input.kind} ${randomUUID()}`;
    const reply = await this.admin.post<RegisteredClient>('/admin/clients', { name, ...input });
    if (reply.status !== 201) throw new Error(describeReply(`POST /admin/clients (${name})`, reply));
    this.registered.push(reply.body.clientId);
    const client = new ApiClient(this.baseUrl, reply.body.clientId, reply.body.clientSecret, input.scopes.join(' '));
    return { client, registered: reply.body };
  }

  /**
   * A client of `kind` with `scopes` (and, for an RSP, a webhook URL when given), and the whole registration reply
   * with its secrets, for tests that authenticate with the credentials themselves, e.g. with an OAuth client library.
   */
  registration(
    kind: Exclude<ClientKind, 'ADMIN'>,
    scopes: Scope[],
    webhookUrl?: string,
  ): Promise<{ client: ApiClient; registered: RegisteredClient }> {
    return this.registerClient({ kind, scopes, ...(webhookUrl === undefined ? {} : { webhookUrl }) });
  }

  /** An RSP: reads locations, statistics and exports. */
  rsp(): Promise<ApiClient> {
    return this.register('RSP', [SCOPES.locationsRead]);
  }

  /** The operator's tool: writes locations and groups. */
  operator(): Promise<ApiClient> {
    return this.register('OPERATOR', [SCOPES.locationsWrite]);
  }

  /** POST /admin/clients/{id}/rotate-secret: the new secret (the tokens the client held are revoked). */
  async rotateSecret(clientId: string): Promise<string> {
    const reply = await this.admin.post<{ clientSecret: string }>(
      `/admin/clients/${clientId}/rotate-secret`,
      undefined,
    );
    if (reply.status !== 200) throw new Error(describeReply(`POST /admin/clients/${clientId}/rotate-secret`, reply));
    return reply.body.clientSecret;
  }

  /** POST /admin/clients/{id}/disable. */
  async disable(clientId: string): Promise<void> {
    const reply = await this.admin.post(`/admin/clients/${clientId}/disable`, undefined);
    if (reply.status !== 200) throw new Error(describeReply(`POST /admin/clients/${clientId}/disable`, reply));
  }

  async disableAll(): Promise<void> {
    await Promise.all(
      this.registered.splice(0).map((clientId) => this.admin.post(`/admin/clients/${clientId}/disable`, undefined)),
    );
  }
}

/** A location as the operator API answered a write, with the aggregate version of its ETag. */
export interface WrittenLocation {
  location: Location;
  version: number;
}

/** The aggregate version in an ETag (`"3"` or `W/"3"`), `undefined` when there is none. */
export function versionOf(etag: string | null): number | undefined {
  const match = /^(?:W\/)?"(\d+)"$/.exec(etag ?? '');
  return match ? Number(match[1]) : undefined;
}

/** Turns a 200/201 reply of the operator's location API into a WrittenLocation, or throws with the reply. */
export function writtenLocation(what: string, reply: HttpReply<Location>): WrittenLocation {
  const version = versionOf(reply.headers.get('etag'));
  if ((reply.status !== 200 && reply.status !== 201) || version === undefined) {
    throw new Error(describeReply(what, reply));
  }
  return { location: reply.body, version };
}

/** The operator's write API. */
export class OperatorApi {
  constructor(private readonly client: ApiClient) {}

  async createLocationGroup(name: string): Promise<string> {
    const reply = await this.client.post<{ id: string }>('/operator/location-groups', { name, type: 'OTHER' });
    if (reply.status !== 201) throw new Error(describeReply('POST /operator/location-groups', reply));
    return reply.body.id;
  }

  async createAddressGroup(name: string): Promise<string> {
    const reply = await this.client.post<{ id: string }>('/operator/address-groups', { name, type: 'MDU_COMPLEX' });
    if (reply.status !== 201) throw new Error(describeReply('POST /operator/address-groups', reply));
    return reply.body.id;
  }

  async createLocation(input: Record<string, unknown>): Promise<WrittenLocation> {
    const reply = await this.client.post<Location>('/operator/locations', input);
    if (reply.status !== 201) throw new Error(describeReply('POST /operator/locations', reply));
    return writtenLocation('POST /operator/locations', reply);
  }

  async patchLocation(id: string, patch: Record<string, unknown>): Promise<WrittenLocation> {
    const reply = await this.client.request<Location>('PATCH', `/operator/locations/${id}`, {
      body: patch,
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    return writtenLocation(`PATCH /operator/locations/${id}`, reply);
  }

  /** PUT /operator/locations/{id}: creates the location under the operator's own id (201) or replaces it (200). */
  async replaceLocation(id: string, input: Record<string, unknown>): Promise<WrittenLocation & { created: boolean }> {
    const reply = await this.client.request<Location>('PUT', `/operator/locations/${id}`, { body: input });
    return { ...writtenLocation(`PUT /operator/locations/${id}`, reply), created: reply.status === 201 };
  }

  /** PATCH /operator/{collection}/{id} with a JSON Merge Patch; expects 200. */
  async patchGroup(collection: GroupCollection, id: string, patch: Record<string, unknown>): Promise<WrittenGroup> {
    const reply = await this.client.request<Group>('PATCH', `/operator/${collection}/${id}`, {
      body: patch,
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    return writtenGroup(`PATCH /operator/${collection}/${id}`, reply, [200]);
  }

  /** PUT /operator/{collection}/{id}: creates the group under the operator's own id (201) or replaces it (200). */
  async replaceGroup(
    collection: GroupCollection,
    id: string,
    body: Record<string, unknown>,
  ): Promise<WrittenGroup & { created: boolean }> {
    const reply = await this.client.request<Group>('PUT', `/operator/${collection}/${id}`, { body });
    return { ...writtenGroup(`PUT /operator/${collection}/${id}`, reply, [200, 201]), created: reply.status === 201 };
  }

  /** DELETE /operator/{collection}/{id}; expects 204. */
  async deleteGroup(collection: GroupCollection, id: string): Promise<void> {
    const reply = await this.client.request('DELETE', `/operator/${collection}/${id}`);
    if (reply.status !== 204) throw new Error(describeReply(`DELETE /operator/${collection}/${id}`, reply));
  }
}

/** The two kinds of group by their path: `/operator/{collection}` for the operator, `/{collection}` for RSPs. */
export type GroupCollection = 'location-groups' | 'address-groups';

/** A location group or an address group. */
export type Group = LocationGroup | AddressGroup;

/** A group as the operator API answered a write, with the aggregate version of its ETag. */
export interface WrittenGroup {
  group: Group;
  version: number;
}

function writtenGroup(what: string, reply: HttpReply<Group>, statuses: number[]): WrittenGroup {
  const version = versionOf(reply.headers.get('etag'));
  if (!statuses.includes(reply.status) || version === undefined) throw new Error(describeReply(what, reply));
  return { group: reply.body, version };
}

/** How long a test waits for the read side to show an operator's write: eventual consistency, but bounded. */
export const READ_SIDE_TIMEOUT_MS = 30_000;

/**
 * Polls `read` until what it answers equals `expected` (jest's `toEqual`, asymmetric matchers included) and returns
 * it; after `timeoutMs` fails with jest's diff between `expected` and the last answer. For reads of the eventually
 * consistent read side after an operator's write.
 */
export async function awaitEqual<T>(
  what: string,
  read: () => Promise<T>,
  expected: T,
  timeoutMs = READ_SIDE_TIMEOUT_MS,
): Promise<T> {
  let last = { error: 'no answer yet' } as { value: T } | { error: string };
  try {
    await waitFor(
      what,
      async () => {
        try {
          last = { value: await read() };
        } catch (error) {
          last = { error: (error as Error).message };
          return false;
        }
        expect(last.value).toEqual(expected);
        return true;
      },
      timeoutMs,
    );
  } catch {
    // Timed out: the assertion below says what was read last, against what was expected.
  }
  expect({ what, last }).toEqual({ what, last: { value: expected } });
  return (last as { value: T }).value;
}

/** `body` checked against a contract's schema: the parsed value, or an error naming `what` and every issue. */
export function conforming<T>(what: string, schema: ZodType<T, ZodTypeDef, unknown>, body: unknown): T {
  const result = validate(schema, body);
  if (!result.ok)
    throw new Error(`${what} breaks its contract: ${JSON.stringify(result.issues)} ${JSON.stringify(body)}`);
  return result.value;
}

/** GET `path` expecting 200: the body, or an error with the whole reply. */
export async function readOk<T>(reader: ApiClient, path: string): Promise<T> {
  const reply = await reader.get<T>(path);
  if (reply.status !== 200) throw new Error(describeReply(`GET ${path}`, reply));
  return reply.body;
}

/** A location as GET /locations/{id} serves it, with the aggregate version of its ETag. */
export interface ServedLocation {
  location: Location;
  version: number | undefined;
}

/** GET /locations/{id} expecting 200: the location and its ETag's version. */
export async function readLocation(reader: ApiClient, id: string): Promise<ServedLocation> {
  const reply = await reader.get<Location>(`/locations/${id}`);
  if (reply.status !== 200) throw new Error(describeReply(`GET /locations/${id}`, reply));
  return { location: reply.body, version: versionOf(reply.headers.get('etag')) };
}

/** The counts of GET /locations/statistics: the reply without `queryTimestamp`, which changes with every call. */
export type StatisticsCounts = Omit<StatisticsResponse, 'queryTimestamp'>;

/** GET /locations/statistics?{query}, checked against the statistics contract; its counts. */
export async function statisticsCounts(reader: ApiClient, query: Record<string, string>): Promise<StatisticsCounts> {
  const path = `/locations/statistics?${new URLSearchParams(query).toString()}`;
  const { queryTimestamp: _, ...counts } = conforming(
    `GET ${path}`,
    statisticsResponseSchema,
    await readOk(reader, path),
  );
  return counts;
}

/** Statistics counts with every key of the contract: the given counts, zero for every other key. */
export function countsOf(
  totalCount: number,
  byStatus: Partial<StatisticsCounts['countByStatus']>,
  byType: Partial<StatisticsCounts['countByType']>,
): StatisticsCounts {
  const zeros = <K extends string>(keys: readonly K[]) =>
    Object.fromEntries(keys.map((key) => [key, 0])) as Record<K, number>;
  return {
    totalCount,
    countByStatus: { ...zeros(SERVICEABILITY_STATUSES), ...byStatus },
    countByType: { ...zeros([...LOCATION_SHAPES, ...LOCATION_GROUPINGS]), ...byType },
  };
}

/**
 * Waits until the read side (`GET /locations/{id}`, eventually consistent with the operator's writes) serves at
 * least `version` of a location, and returns what it serves.
 */
export async function awaitReadSide(
  reader: ApiClient,
  id: string,
  version: number,
  timeoutMs = 30_000,
): Promise<Location> {
  let last: HttpReply<Location> | undefined;
  try {
    await waitFor(
      `GET /locations/${id} at version ${version}`,
      async () => {
        last = await reader.get<Location>(`/locations/${id}`);
        return last.status === 200 && (versionOf(last.headers.get('etag')) ?? 0) >= version;
      },
      timeoutMs,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; last reply: ${last ? describeReply('GET', last) : 'none'}`);
  }
  return last!.body;
}

/** Waits until the read side serves a group the operator created (exports check filters against the read side). */
export async function awaitLocationGroup(reader: ApiClient, id: string, timeoutMs = 30_000): Promise<void> {
  let last: HttpReply | undefined;
  try {
    await waitFor(
      `GET /location-groups/${id}`,
      async () => {
        last = await reader.get(`/location-groups/${id}`);
        return last.status === 200;
      },
      timeoutMs,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; last reply: ${last ? describeReply('GET', last) : 'none'}`);
  }
}

/** Waits until the webhook dispatcher knows an RSP: it learns of clients from auth's events, and answers once it has. */
export async function awaitSubscription(rsp: ApiClient): Promise<void> {
  await waitFor('the dispatcher to know the RSP', async () => (await rsp.get('/webhooks/subscription')).status === 200);
}
