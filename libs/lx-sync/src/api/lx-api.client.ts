import {
  DIGEST,
  DIGEST_RESOURCES,
  type DigestEntriesReply,
  type DigestNodeReply,
  type DigestResource,
  type ExportStatusReply,
  parseRetryAfter,
} from '@lx/contracts';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { LxSyncError } from '../errors';

/** The three resources a mirror holds (those the digest covers), and where the API serves each one's single reads. */
export const MIRROR_RESOURCES: Record<DigestResource, { itemPath: string }> = {
  locations: { itemPath: '/locations' },
  locationGroups: { itemPath: '/location-groups' },
  addressGroups: { itemPath: '/address-groups' },
};
export type MirrorResource = DigestResource;
export const MIRROR_RESOURCE_NAMES: readonly MirrorResource[] = DIGEST_RESOURCES;

/** A page of the change feed; each change's `event` is checked where it is applied (rowOfChange). */
export interface ChangePage {
  readonly changes: readonly { event: unknown }[];
  readonly next: string;
  readonly hasMore: boolean;
}
export interface VersionedResource {
  readonly body: Record<string, unknown> & { id: string };
  readonly version: number;
}

interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

/** The scope a mirror needs: every read an RSP may make. */
const SCOPE = 'locations:read';
/** A token is renewed this long before it expires. */
const RENEW_BEFORE_MS = 60_000;
/**
 * Requests refused by the API's rate limit (429) or, reads, for want of capacity (503), are sent again after
 * Retry-After, at most this many times in a row.
 */
const MAX_THROTTLED_RETRIES = 10;
/** The longest wait for one Retry-After (a larger value is waited in part, then asked again). */
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Milliseconds to wait before sending again a request the API refused for now: one over the rate limit (a 429 with
 * the RateLimit-Policy field), or a read (GET) refused 503 with Retry-After (nothing was done: the read service had
 * no capacity, a query ran past its time, or the ingress found the service down, as in a restart). Undefined for any
 * other reply, such as a 429 of the export quota (an hour's window: not worth waiting), a 503 of a write (not sent
 * twice), or a 503 without Retry-After (no word on when to come back).
 */
export function retryWaitMs(
  method: string,
  reply: { status: number; headers: Headers },
  nowMs: number,
): number | undefined {
  const retryAfter = reply.headers.get('retry-after');
  const throttled = reply.status === 429 && reply.headers.has('ratelimit-policy');
  const busy = reply.status === 503 && method === 'GET' && retryAfter !== null;
  if (!throttled && !busy) return undefined;
  return parseRetryAfter(retryAfter ?? '', nowMs, MAX_RETRY_AFTER_MS) ?? 1_000;
}

/**
 * The API as lx-sync uses it: a client-credentials token fetched once and renewed before it expires (a client that
 * fails authentication repeatedly is throttled, so never per call), each failure turned into an LxSyncError that
 * names what to check.
 */
export class LxApiClient {
  private token?: { value: string; expiresAt: number };

  constructor(
    private readonly options: {
      apiUrl: string;
      clientId: string;
      clientSecret: string;
      requestTimeoutMs: number;
    },
  ) {}

  /**
   * Requests, in this client's life, by kind (for the benchmark and the verify report); `throttled`: 429s and 503s
   * waited out.
   */
  readonly requests = { token: 0, api: 0, throttled: 0 };

  async createExport(body: { format: 'json'; includeVersions: true; modifiedSince?: string }): Promise<string> {
    const reply = await this.call('POST', '/locations/exports', { body, expect: [202] });
    return (reply.body as { requestId: string }).requestId;
  }

  async exportStatus(requestId: string): Promise<ExportStatusReply> {
    return (await this.call('GET', `/locations/exports/${requestId}`, { expect: [200] })).body as ExportStatusReply;
  }

  /** The export file, streamed (its URL is signed: no token). */
  async download(url: string): Promise<Readable> {
    let response: Response;
    try {
      response = await fetch(url);
    } catch (error) {
      throw unreachable(url, error);
    }
    if (response.status !== 200 || response.body === null) {
      throw new LxSyncError('EXPORT_FAILED', `the export file could not be downloaded: HTTP ${response.status}`, {
        status: response.status,
      });
    }
    return Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
  }

  async digestNode(resource: MirrorResource, prefix: string, depth: number): Promise<DigestNodeReply> {
    const reply = await this.call('GET', DIGEST.resources[resource].path, {
      query: { prefix, depth: String(depth) },
      expect: [200],
    });
    return reply.body as DigestNodeReply;
  }

  async digestEntries(resource: MirrorResource, prefix: string): Promise<DigestEntriesReply> {
    const reply = await this.call('GET', DIGEST.resources[resource].entriesPath, {
      query: { prefix },
      expect: [200],
    });
    return reply.body as DigestEntriesReply;
  }

  /** A page of the change feed; FEED_EXPIRED when the cursor is behind the feed's retention (410). */
  async changes(after: string | undefined, limit: number): Promise<ChangePage> {
    const query: Record<string, string> = { limit: String(limit) };
    if (after !== undefined) query.after = after;
    const reply = await this.call('GET', '/locations/changes', { query, expect: [200, 410] });
    if (reply.status === 410) {
      throw new LxSyncError('FEED_EXPIRED', errorMessageOf(reply.body) ?? 'the change feed cursor expired', {
        reason: (reply.body as { error?: { details?: { reason?: string } } }).error?.details?.reason,
      });
    }
    const page = reply.body as Partial<ChangePage> | undefined;
    if (!Array.isArray(page?.changes) || typeof page.next !== 'string' || typeof page.hasMore !== 'boolean') {
      throw new LxSyncError('API_ERROR', 'GET /locations/changes answered something else than a page of changes');
    }
    return page as ChangePage;
  }

  /** One location or group as the API serves it now, with its version (the ETag); undefined when it does not exist. */
  async getResource(resource: MirrorResource, id: string): Promise<VersionedResource | undefined> {
    const reply = await this.call('GET', `${MIRROR_RESOURCES[resource].itemPath}/${id}`, { expect: [200, 404] });
    if (reply.status === 404) return undefined;
    const version = Number(/^(?:W\/)?"(\d+)"$/.exec(reply.headers.get('etag') ?? '')?.[1]);
    if (!Number.isInteger(version) || version < 1) {
      throw new LxSyncError(
        'API_ERROR',
        `GET ${MIRROR_RESOURCES[resource].itemPath}/${id} answered without a version ETag`,
      );
    }
    return { body: reply.body as VersionedResource['body'], version };
  }

  async statistics(): Promise<{ totalCount: number }> {
    return (await this.call('GET', '/locations/statistics', { expect: [200] })).body as { totalCount: number };
  }

  private async call(
    method: 'GET' | 'POST',
    path: string,
    options: { query?: Record<string, string>; body?: unknown; expect: readonly number[] },
  ): Promise<Reply> {
    const url = new URL(this.options.apiUrl + path);
    for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
    let throttled = 0;
    let renewed = false;
    for (;;) {
      const token = await this.accessToken();
      this.requests.api++;
      const reply = await this.fetchJson(url.toString(), {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
      // A token revoked or expired early: fetch a new one, once.
      if (reply.status === 401 && !renewed) {
        renewed = true;
        this.token = undefined;
        continue;
      }
      // Over the client's rate limit, or a read the API was too busy for: wait as told and send it again.
      const waitMs = retryWaitMs(method, reply, Date.now());
      if (waitMs !== undefined && throttled < MAX_THROTTLED_RETRIES) {
        throttled++;
        this.requests.throttled++;
        await new Promise((resolve) => setTimeout(resolve, waitMs));
        continue;
      }
      if (options.expect.includes(reply.status)) return reply;
      throw apiError(`${method} ${path}`, reply);
    }
  }

  private async accessToken(): Promise<string> {
    if (this.token !== undefined && this.token.expiresAt - RENEW_BEFORE_MS > Date.now()) return this.token.value;
    const url = `${this.options.apiUrl}/oauth/token`;
    this.requests.token++;
    const reply = await this.fetchJson(url, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(
          `${encodeURIComponent(this.options.clientId)}:${encodeURIComponent(this.options.clientSecret)}`,
        ).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: SCOPE }).toString(),
    });
    if (reply.status !== 200) {
      const body = reply.body as { error?: string; error_description?: string } | undefined;
      const reason = body?.error_description ?? body?.error ?? `HTTP ${reply.status}`;
      throw new LxSyncError(
        'AUTH_FAILED',
        reply.status === 429
          ? `the API throttles this client after repeated failed authentications (retry after ${reply.headers.get('retry-after') ?? '?'} s): check LX_SYNC_CLIENT_ID and LX_SYNC_CLIENT_SECRET`
          : `the API refused the client credentials (${reason}): check LX_SYNC_CLIENT_ID and LX_SYNC_CLIENT_SECRET, and that the client may read locations (scope ${SCOPE})`,
        { status: reply.status, error: body?.error },
      );
    }
    const { access_token: value, expires_in: expiresIn } = reply.body as { access_token: string; expires_in: number };
    this.token = { value, expiresAt: Date.now() + expiresIn * 1000 };
    return value;
  }

  private async fetchJson(url: string, init: RequestInit): Promise<Reply> {
    let response: Response;
    let text: string;
    try {
      // The timeout covers the body too: a reply that stalls half-way is as unreachable as one that never starts.
      response = await fetch(url, { ...init, signal: AbortSignal.timeout(this.options.requestTimeoutMs) });
      text = await response.text();
    } catch (error) {
      throw unreachable(this.options.apiUrl, error);
    }
    let body: unknown = undefined;
    if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch {
        body = { message: text.slice(0, 200) };
      }
    }
    return { status: response.status, headers: response.headers, body };
  }
}

function unreachable(url: string, error: unknown): LxSyncError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason =
    (error as Error).name === 'TimeoutError'
      ? 'no reply in time (LX_SYNC_REQUEST_TIMEOUT_MS)'
      : (cause?.code ?? cause?.message ?? (error as Error).message);
  return new LxSyncError('API_UNREACHABLE', `cannot reach the API at ${url}: ${reason} (check LX_SYNC_API_URL)`, {
    reason,
  });
}

/** The API's error body is `{"error": {"code", "message", "details"}}`; anything else is quoted as it came. */
function errorMessageOf(body: unknown): string | undefined {
  const record = body as { message?: unknown; error?: { message?: unknown } } | undefined;
  const message = record?.error?.message ?? record?.message;
  return typeof message === 'string' ? message : undefined;
}

function apiError(what: string, reply: Reply): LxSyncError {
  const code = (reply.body as { error?: { code?: string } } | undefined)?.error?.code;
  const message = errorMessageOf(reply.body);
  return new LxSyncError(
    'API_ERROR',
    `${what} failed: HTTP ${reply.status}${code === undefined ? '' : ` ${code}`}${message === undefined ? '' : `: ${message}`}`,
    { status: reply.status, code },
  );
}
