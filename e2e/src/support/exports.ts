import { createHash } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import {
  type AddressGroupListItem,
  csvRowToLocationInput,
  EXPORT_CONTENT_TYPES,
  exportAcceptedSchema,
  type ExportAccepted,
  type ExportFormat,
  type ExportRequestBody,
  type ExportStatusReply,
  exportStatusReplySchema,
  jsonExportFileSchema,
  type Location,
  LOCATION_CSV_COLUMNS,
  type LocationGroupListItem,
  locationSchema,
  parseRetryAfter,
  validate,
} from '@lx/contracts';
import { waitFor } from '@lx/testing';
import { type ApiClient, describeReply, type HttpReply } from './api';

/** The status reply of a COMPLETED export. */
export type CompletedExport = Extract<ExportStatusReply, { status: 'COMPLETED' }>;

/**
 * A downloaded and parsed export file: the locations in file order, and the file's own header values and group arrays
 * (json only).
 */
export interface ExportFile {
  locations: Location[];
  exportTimestamp?: string;
  totalCount?: number;
  locationGroups?: LocationGroupListItem[];
  addressGroups?: AddressGroupListItem[];
}

/**
 * POST /locations/exports, expecting 202 with the accepted body and its Location header. A 429 is retried after its
 * Retry-After (at most 3 times), as an RSP would.
 */
export async function requestExport(
  client: ApiClient,
  body: ExportRequestBody,
  headers?: Record<string, string>,
): Promise<ExportAccepted> {
  for (let attempt = 0; ; attempt += 1) {
    const reply = await client.post('/locations/exports', body, headers);
    if (reply.status === 429 && attempt < 3) {
      const waitMs = parseRetryAfter(reply.headers.get('retry-after') ?? '', Date.now(), 30_000) ?? 1_000;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      continue;
    }
    return acceptedExport(`POST /locations/exports ${JSON.stringify(body)}`, reply);
  }
}

/** Checks a 202 reply of POST /locations/exports and returns its body. */
export function acceptedExport(what: string, reply: HttpReply): ExportAccepted {
  if (reply.status !== 202) throw new Error(describeReply(what, reply));
  const accepted = validate(exportAcceptedSchema, reply.body);
  if (!accepted.ok)
    throw new Error(`${describeReply(what, reply)}: not an accepted reply ${JSON.stringify(accepted.issues)}`);
  const location = reply.headers.get('location');
  if (location !== `/locations/exports/${accepted.value.requestId}`) {
    throw new Error(
      `${what}: Location header ${location} does not name /locations/exports/${accepted.value.requestId}`,
    );
  }
  return accepted.value;
}

/** GET /locations/exports/{id}, checked against the status reply contract. */
export async function exportStatus(client: ApiClient, requestId: string): Promise<ExportStatusReply> {
  const reply = await client.get(`/locations/exports/${requestId}`);
  if (reply.status !== 200) throw new Error(describeReply(`GET /locations/exports/${requestId}`, reply));
  const status = validate(exportStatusReplySchema, reply.body);
  if (!status.ok) {
    throw new Error(
      `GET /locations/exports/${requestId}: reply ${reply.text} breaks the contract: ${JSON.stringify(status.issues)}`,
    );
  }
  return status.value;
}

/** Polls the status until it leaves PENDING; throws (with the last reply) on FAILED or after `timeoutMs`. */
export async function awaitCompleted(
  client: ApiClient,
  requestId: string,
  timeoutMs = 60_000,
): Promise<CompletedExport> {
  let last: ExportStatusReply | undefined;
  let failure: Error | undefined;
  try {
    await waitFor(
      `export ${requestId} to leave PENDING`,
      async () => {
        try {
          last = await exportStatus(client, requestId);
        } catch (error) {
          failure = error as Error; // a contract break is an answer too: stop polling at once
          return true;
        }
        return last.status !== 'PENDING';
      },
      timeoutMs,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; last status: ${JSON.stringify(last)}`);
  }
  if (failure !== undefined) throw failure;
  if (last?.status !== 'COMPLETED') throw new Error(`export ${requestId} did not complete: ${JSON.stringify(last)}`);
  return last;
}

/**
 * Downloads a COMPLETED export with a plain fetch, without any token, and checks what every download must hold:
 * 200, the format's Content-Type, an attachment Content-Disposition with a filename (and optionally its RFC 6266
 * `filename*` form), a Content-Length equal to the
 * body's length and to `sizeBytes`, and the body's SHA-256 equal to `sha256`.
 */
export async function downloadExport(status: CompletedExport): Promise<Buffer> {
  const response = await fetch(status.exportUrl, { signal: AbortSignal.timeout(30_000) });
  const body = Buffer.from(await response.arrayBuffer());
  const what = `GET ${status.exportUrl} (export ${status.requestId})`;
  if (response.status !== 200)
    throw new Error(`${what} answered ${response.status} ${body.toString('utf8').slice(0, 2000)}`);
  const headers = {
    contentType: response.headers.get('content-type'),
    contentDisposition: response.headers.get('content-disposition'),
    contentLength: response.headers.get('content-length'),
  };
  const expected = {
    contentType: EXPORT_CONTENT_TYPES[status.format],
    contentDisposition: expect.stringMatching(
      /^attachment; filename="[^"\\/]+"(; filename\*=UTF-8''[^;\s]+)?$/,
    ) as unknown,
    contentLength: String(body.length),
  };
  expect({ what, ...headers }).toEqual({ what, ...expected });
  expect({ what, sizeBytes: status.sizeBytes }).toEqual({ what, sizeBytes: body.length });
  expect({ what, sha256: createHash('sha256').update(body).digest('hex') }).toEqual({ what, sha256: status.sha256 });
  return body;
}

/** Parses a json export file against its contract; the file's header must agree with the status reply. */
export function parseJsonExport(status: CompletedExport, body: Buffer): ExportFile {
  const file = validate(jsonExportFileSchema, JSON.parse(decodeUtf8(body)));
  if (!file.ok)
    throw new Error(`json export ${status.requestId} breaks the file contract: ${JSON.stringify(file.issues)}`);
  const { locationGroups, addressGroups } = file.value;
  // Every json export of this release carries both group arrays, each ordered by id.
  for (const [key, groups] of [
    ['locationGroups', locationGroups],
    ['addressGroups', addressGroups],
  ] as const) {
    const ids = groups?.map((group) => group.id);
    expect({ requestId: status.requestId, key, ids }).toEqual({
      requestId: status.requestId,
      key,
      ids: [...(ids ?? [])].sort(compareIds),
    });
  }
  return {
    locations: file.value.locations,
    exportTimestamp: file.value.exportTimestamp,
    totalCount: file.value.totalCount,
    locationGroups,
    addressGroups,
  };
}

/**
 * Parses a csv export file (RFC 4180, strict quoting, UTF-8) with csv-parse: a header of exactly the dotted columns
 * of LOCATION_CSV_COLUMNS, then one record per location, turned back into a Location with `csvRowToLocationInput`
 * (coordinates as numbers, customFields from its JSON cell) plus the id and timestamp cells.
 */
export function parseCsvExport(status: CompletedExport, body: Buffer): ExportFile {
  const rows = parse(decodeUtf8(body), { bom: true, relax_quotes: false, relax_column_count: false });
  const [header, ...records] = rows;
  expect({ requestId: status.requestId, header }).toEqual({
    requestId: status.requestId,
    header: [...LOCATION_CSV_COLUMNS],
  });
  const locations = records.map((cells, index) => {
    const row = Object.fromEntries(LOCATION_CSV_COLUMNS.map((name, column) => [name, cells[column]]));
    const decoded = csvRowToLocationInput(row);
    const candidate = { id: row['id'], createdAt: row['createdAt'], updatedAt: row['updatedAt'], ...decoded.input };
    const location = validate(locationSchema, candidate);
    if (decoded.issues.length > 0 || !location.ok) {
      const issues = [...decoded.issues, ...(location.ok ? [] : location.issues)];
      throw new Error(
        `csv export ${status.requestId} record ${index + 1} is no location: ${JSON.stringify(issues)} ${JSON.stringify(cells)}`,
      );
    }
    return location.value;
  });
  return { locations };
}

/** Downloads and parses an export in its format, and checks what holds for both: count, header values, order by id. */
export async function fetchExportFile(status: CompletedExport): Promise<ExportFile> {
  const body = await downloadExport(status);
  const file = status.format === 'json' ? parseJsonExport(status, body) : parseCsvExport(status, body);
  const ids = file.locations.map((location) => location.id);
  expect({ requestId: status.requestId, count: ids.length, ids }).toEqual({
    requestId: status.requestId,
    count: status.totalCount,
    ids: [...ids].sort(compareIds),
  });
  expect(new Set(ids).size).toBe(ids.length);
  if (file.exportTimestamp !== undefined) expect(file.exportTimestamp).toBe(status.exportTimestamp);
  if (file.totalCount !== undefined) expect(file.totalCount).toBe(status.totalCount);
  return file;
}

/** Requests an export, waits until it is COMPLETED and returns its status and parsed file. */
export async function runExport(
  client: ApiClient,
  body: ExportRequestBody,
  timeoutMs = 60_000,
): Promise<{ status: CompletedExport; file: ExportFile }> {
  const accepted = await requestExport(client, body);
  const status = await awaitCompleted(client, accepted.requestId, timeoutMs);
  const asked = (reply: Pick<ExportRequestBody, 'format' | 'modifiedSince' | 'filters'>) => ({
    format: reply.format,
    modifiedSince: reply.modifiedSince === undefined ? undefined : instantKey(reply.modifiedSince),
    filters: reply.filters,
  });
  expect({ requestId: status.requestId, ...asked(status) }).toEqual({ requestId: status.requestId, ...asked(body) });
  return { status, file: await fetchExportFile(status) };
}

/** The byte order of the UUIDs' text, which is the order of Postgres' uuid type for lower-case ids. */
export const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A sortable key of a UTC date-time (`2024-01-31T09:30:00.12Z` → nanosecond-padded), so that instants with different
 * numbers of fraction digits compare exactly as strings.
 */
export function instantKey(value: string): string {
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(value);
  if (!match) throw new Error(`not a UTC date-time: ${value}`);
  return `${match[1]}.${(match[2] ?? '').padEnd(9, '0')}Z`;
}

/** The formats, in the order tests alternate them. */
export const FORMATS: readonly ExportFormat[] = ['json', 'csv'];

function decodeUtf8(body: Buffer): string {
  return new TextDecoder('utf-8', { fatal: true }).decode(body);
}
