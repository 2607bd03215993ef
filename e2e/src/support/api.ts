import { randomUUID } from 'node:crypto';
import { type ClientKind, type Location, type RegisteredClient, type Scope, SCOPES } from '@lx/contracts';
import { requireEnv, waitFor } from '@lx/testing';

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
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(30_000),
    });
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

  /** An RSP: reads locations, statistics and exports. */
  rsp(): Promise<ApiClient> {
    return this.register('RSP', [SCOPES.locationsRead]);
  }

  /** The operator's tool: writes locations and groups. */
  operator(): Promise<ApiClient> {
    return this.register('OPERATOR', [SCOPES.locationsWrite]);
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
