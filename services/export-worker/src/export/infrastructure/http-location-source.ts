import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import {
  type ExportFormat,
  LOCATION_SNAPSHOT,
  statisticsResponseSchema,
  WATERMARK_FENCE,
  watermarkReplySchema,
} from '@lx/contracts';
import { DependencyUnavailableError, type ExportSelection } from '@lx/domain';
import { type ServiceTokenProvider, withTraceHeaders } from '@lx/platform';
import { LocationSource, type LocationSnapshot } from './location-source';

export interface PeerUrls {
  locationQueryUrl: string;
  locationCommandUrl: string;
  statisticsUrl: string;
  /** Longest wait for a reply's headers; a snapshot's body may then take as long as it takes. */
  timeoutMs: number;
}

/** Query string of a selection, as the snapshot and the statistics endpoint name the filters. */
function selectionQuery(selection: ExportSelection, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams(extra);
  if (selection.modifiedSince !== undefined) query.set('modifiedSince', selection.modifiedSince);
  if (selection.locationGroupId !== undefined) query.set('locationGroupId', selection.locationGroupId);
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * The LocationSource over the peers' internal HTTP endpoints, with this service's own token (renewed once when a
 * peer answers 401). A peer that cannot be reached or answers an error is SERVICE_UNAVAILABLE (503 at request time;
 * a failed attempt, retried, during generation).
 */
export class HttpLocationSource extends LocationSource {
  constructor(
    private readonly urls: PeerUrls,
    private readonly tokens: ServiceTokenProvider,
  ) {
    super();
  }

  async watermark(): Promise<Date> {
    const response = await this.call('POST', `${this.urls.locationCommandUrl}${WATERMARK_FENCE.path}`);
    const reply = watermarkReplySchema.safeParse(await response.json());
    if (!reply.success) throw new DependencyUnavailableError('location-command answered the fence without a watermark');
    return new Date(reply.data.watermark);
  }

  async snapshot(selection: ExportSelection, format: ExportFormat, versions = false): Promise<LocationSnapshot> {
    const groups = format === 'json';
    // versions only when asked: a location-query of the previous release refuses the parameter (400), which must not
    // fail the exports that do not need it.
    const query = selectionQuery(selection, {
      [LOCATION_SNAPSHOT.catchUpParameter]: 'true',
      [LOCATION_SNAPSHOT.formatParameter]: format,
      ...(groups ? { [LOCATION_SNAPSHOT.groupsParameter]: 'true' } : {}),
      ...(groups && versions ? { [LOCATION_SNAPSHOT.versionsParameter]: 'true' } : {}),
    });
    const response = await this.call('GET', `${this.urls.locationQueryUrl}${LOCATION_SNAPSHOT.path}${query}`);
    const totalCount = countHeader(response, LOCATION_SNAPSHOT.totalCountHeader);
    const locationGroups = groups ? countHeader(response, LOCATION_SNAPSHOT.locationGroupCountHeader) : 0;
    const addressGroups = groups ? countHeader(response, LOCATION_SNAPSHOT.addressGroupCountHeader) : 0;
    if (totalCount === undefined || locationGroups === undefined || addressGroups === undefined || !response.body) {
      await response.body?.cancel();
      throw new DependencyUnavailableError('location-query answered the snapshot without its counts');
    }
    return {
      totalCount,
      ...(groups ? { groupCounts: { locationGroups, addressGroups } } : {}),
      stream: Readable.fromWeb(response.body as WebReadableStream<Uint8Array>),
    };
  }

  async count(selection: ExportSelection): Promise<number> {
    const response = await this.call(
      'GET',
      `${this.urls.statisticsUrl}/locations/statistics${selectionQuery(selection)}`,
    );
    const reply = statisticsResponseSchema.safeParse(await response.json());
    if (!reply.success) throw new DependencyUnavailableError('statistics-projection answered without a total count');
    return reply.data.totalCount;
  }

  async locationGroupExists(id: string): Promise<boolean> {
    const response = await this.call('GET', `${this.urls.locationQueryUrl}/location-groups/${id}`, [404]);
    await response.body?.cancel();
    return response.status === 200;
  }

  private async call(method: string, url: string, accepted: readonly number[] = []): Promise<Response> {
    let response = await this.send(method, url, await this.tokens.token());
    // A token refused (401), or lacking a scope the client has since been given (403 insufficient_scope: issued
    // before an upgrade gave the service client locations:internal), is fetched anew once.
    if (response.status === 401 || isInsufficientScope(response)) {
      await response.body?.cancel();
      this.tokens.invalidate();
      response = await this.send(method, url, await this.tokens.token());
    }
    if (response.ok || accepted.includes(response.status)) return response;
    const text = (await response.text().catch(() => '')).slice(0, 300);
    throw new DependencyUnavailableError(`${method} ${new URL(url).pathname} answered ${response.status}: ${text}`);
  }

  private async send(method: string, url: string, token: string): Promise<Response> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.urls.timeoutMs);
    try {
      return await fetch(url, {
        method,
        // The export's trace goes on into location-query.
        headers: withTraceHeaders({
          authorization: `Bearer ${token}`,
          accept: 'application/json, application/x-ndjson, text/csv',
        }),
        signal: controller.signal,
      });
    } catch (error) {
      const reason = controller.signal.aborted ? `no reply within ${this.urls.timeoutMs} ms` : String(error);
      throw new DependencyUnavailableError(`${method} ${new URL(url).pathname} failed: ${reason}`);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A count a reply header announces; undefined when it is missing or not a count. */
function countHeader(response: Response, name: string): number | undefined {
  const raw = response.headers.get(name);
  const count = raw === null || raw.trim() === '' ? NaN : Number(raw);
  return Number.isSafeInteger(count) && count >= 0 ? count : undefined;
}

/** RFC 6750 section 3.1: the resource server's 403 for a token without the scope the operation needs. */
function isInsufficientScope(response: Response): boolean {
  return response.status === 403 && /error="insufficient_scope"/.test(response.headers.get('www-authenticate') ?? '');
}
