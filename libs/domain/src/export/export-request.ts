import {
  type ExportFormat,
  type ExportNotification,
  type ExportRequestBody,
  exportRequestBodySchema,
  type ExportStatusReply,
  type ValidationIssue,
  validate,
} from '@lx/contracts';
import { ValidationFailedError, type ValidationErrorCode } from '../errors/domain-error';
import type { Result } from '../result';

/** What an export selects: every location, or those updated after `modifiedSince`, optionally of one group. */
export interface ExportSelection {
  modifiedSince?: string;
  locationGroupId?: string;
}

/** The generated file of a COMPLETED export and its current download link. */
export interface ExportFile {
  exportUrl: string;
  downloadExpiresAt: string;
  exportTimestamp: string;
  totalCount: number;
  sha256: string;
  sizeBytes: number;
  objectKey: string;
  /** When the file is deleted and new links are refused. */
  fileExpiresAt: string;
  /** Set once retention deleted the file. */
  fileDeletedAt?: string;
}

/** An export request as the service keeps it. */
export interface ExportRequest extends ExportSelection {
  id: string;
  clientId: string;
  format: ExportFormat;
  /** json only: each location and group of the file ends with its version. Absent when not asked for. */
  includeVersions?: true;
  /** csv only: every formula cell of the file is defused for spreadsheets. Absent when not asked for. */
  spreadsheetSafe?: true;
  createdAt: string;
  status: 'PENDING' | 'COMPLETED' | 'FAILED';
  attempts: number;
  progress: { written: number; total?: number };
  file?: ExportFile;
  error?: { code: 'EXPORT_GENERATION_FAILED'; message: string };
}

/** Which code a body problem travels with: the spec's INVALID_FORMAT and INVALID_DATE_RANGE before the general one. */
function codeOf(issues: readonly ValidationIssue[]): ValidationErrorCode {
  if (issues.some((issue) => issue.field === 'format')) return 'INVALID_FORMAT';
  if (issues.some((issue) => issue.field === 'modifiedSince')) return 'INVALID_DATE_RANGE';
  return 'VALIDATION_ERROR';
}

/**
 * Validates the body of POST /locations/exports at `now`: a missing or unknown format is INVALID_FORMAT; a
 * modifiedSince that is not a UTC `Z` date-time, or lies in the future, INVALID_DATE_RANGE; unknown fields, a
 * malformed filters.locationGroupId, an includeVersions that is not a boolean or is true with format csv (a CSV
 * record has no column for it), and a spreadsheetSafe that is not a boolean or is true with format json (a JSON file
 * is not opened as a spreadsheet), VALIDATION_ERROR. Every problem is named in details.issues.
 */
export function parseExportRequest(body: unknown, now: Date): Result<ExportRequestBody, ValidationFailedError> {
  const checked = validate(exportRequestBodySchema, body ?? {});
  const issues = checked.ok ? [] : [...checked.issues];
  const fields = body as
    | { modifiedSince?: unknown; format?: unknown; includeVersions?: unknown; spreadsheetSafe?: unknown }
    | null
    | undefined;
  const since = fields?.modifiedSince;
  const valid = typeof since === 'string' && !issues.some((issue) => issue.field === 'modifiedSince');
  if (valid && Date.parse(since) > now.getTime()) {
    issues.push({ field: 'modifiedSince', rule: 'notInFuture', message: 'modifiedSince must not be in the future' });
  }
  if (fields?.includeVersions === true && fields.format === 'csv') {
    issues.push({
      field: 'includeVersions',
      rule: 'jsonOnly',
      message: 'includeVersions needs format json: a CSV record has no column for the version',
    });
  }
  if (fields?.spreadsheetSafe === true && fields.format === 'json') {
    issues.push({
      field: 'spreadsheetSafe',
      rule: 'csvOnly',
      message: 'spreadsheetSafe needs format csv: it defuses the cells of a CSV file opened in a spreadsheet',
    });
  }
  if (!checked.ok || issues.length > 0) return { ok: false, error: new ValidationFailedError(issues, codeOf(issues)) };
  return { ok: true, value: checked.value };
}

/** The selection of a valid body. */
export function selectionOf(body: ExportRequestBody): ExportSelection {
  return {
    ...(body.modifiedSince === undefined ? {} : { modifiedSince: body.modifiedSince }),
    ...(body.filters?.locationGroupId === undefined
      ? {}
      : { locationGroupId: body.filters.locationGroupId.toLowerCase() }),
  };
}

/** How an export's file is written besides what it selects; each flag is off unless true. */
export interface ExportFileOptions {
  includeVersions?: boolean;
  spreadsheetSafe?: boolean;
}

/** The file options of a valid body, each present only when true (as ExportRequest keeps them). */
export function fileOptionsOf(body: ExportRequestBody): Pick<ExportRequest, 'includeVersions' | 'spreadsheetSafe'> {
  return {
    ...(body.includeVersions === true ? { includeVersions: true as const } : {}),
    ...(body.spreadsheetSafe === true ? { spreadsheetSafe: true as const } : {}),
  };
}

/**
 * One string per distinct request, for Idempotency-Key: the same key with another body is a conflict. Fields in a
 * fixed order, the time as one instant (…00Z and …00.000Z alike), the group id lower-cased, so the formatting of the
 * JSON body does not matter. Each file option is appended only when true, so a request without it keeps the string
 * (and the stored hash) it had before the option existed, and `false` equals leaving it out.
 */
export function canonicalExportRequest(
  format: ExportFormat,
  selection: ExportSelection,
  options: ExportFileOptions = {},
): string {
  const since = selection.modifiedSince === undefined ? null : new Date(selection.modifiedSince).toISOString();
  const fields: unknown[] = [format, since, selection.locationGroupId?.toLowerCase() ?? null];
  if (options.includeVersions === true) fields.push({ includeVersions: true });
  if (options.spreadsheetSafe === true) fields.push({ spreadsheetSafe: true });
  return JSON.stringify(fields);
}

/** Delay before attempt `attempt + 1` after attempt `attempt` (1-based) failed: base, then doubling, at most an hour. */
export function exportRetryDelaySeconds(attempt: number, baseSeconds: number): number {
  return Math.min(3600, baseSeconds * 2 ** Math.max(0, attempt - 1));
}

/**
 * The `error.message` of a FAILED export, which its RSP reads in the status reply and the EXPORT_FAILED webhook: what
 * it can do, never the internal cause (peer URLs, statuses, storage errors), which stays in the operator's logs under
 * the export id. A generation failure is never the request's fault (a bad request is refused when it is made), so the
 * RSP's move is to ask again later, under a new Idempotency-Key, and to quote the id if it keeps failing.
 */
export function exportFailureMessage(exportId: string, attempts: number): string {
  return (
    `The export could not be generated after ${attempts} attempt${attempts === 1 ? '' : 's'}; the request itself was ` +
    'valid. Request the export again later with a new Idempotency-Key (or none: the same key replays this export); ' +
    `if it keeps failing, contact the operator and quote export id ${exportId}.`
  );
}

/** The reply of GET /locations/exports/{id}: download fields only when COMPLETED, progress while PENDING. */
export function exportStatusReplyOf(request: ExportRequest): ExportStatusReply {
  const asked = {
    requestId: request.id,
    format: request.format,
    createdAt: request.createdAt,
    ...(request.modifiedSince === undefined ? {} : { modifiedSince: request.modifiedSince }),
    ...(request.locationGroupId === undefined ? {} : { filters: { locationGroupId: request.locationGroupId } }),
    ...(request.includeVersions === true ? { includeVersions: true as const } : {}),
    ...(request.spreadsheetSafe === true ? { spreadsheetSafe: true as const } : {}),
  };
  if (request.status === 'COMPLETED' && request.file !== undefined) {
    const { exportUrl, downloadExpiresAt, exportTimestamp, totalCount, sha256, sizeBytes } = request.file;
    return {
      ...asked,
      status: 'COMPLETED',
      exportUrl,
      downloadExpiresAt,
      exportTimestamp,
      totalCount,
      sha256,
      sizeBytes,
    };
  }
  if (request.status === 'FAILED' && request.error !== undefined) {
    return { ...asked, status: 'FAILED', error: { ...request.error } };
  }
  return { ...asked, status: 'PENDING', progress: { ...request.progress } };
}

/** The notification the RSP receives when the export reached COMPLETED or FAILED; undefined while PENDING. */
export function exportNotificationOf(request: ExportRequest): ExportNotification | undefined {
  if (request.status === 'COMPLETED' && request.file !== undefined) {
    const { exportUrl, downloadExpiresAt, exportTimestamp, totalCount } = request.file;
    return { requestId: request.id, status: 'COMPLETED', exportUrl, downloadExpiresAt, exportTimestamp, totalCount };
  }
  if (request.status === 'FAILED' && request.error !== undefined) {
    return { requestId: request.id, status: 'FAILED', error: { ...request.error } };
  }
  return undefined;
}

/** File name offered for download: the request id and the format's extension. */
export function exportFilename(request: Pick<ExportRequest, 'id' | 'format'>): string {
  return `locations-export-${request.id}.${request.format}`;
}

/**
 * Where an attempt of an export writes its file in the bucket: one object per attempt, under the request's own
 * prefix, so a late attempt never overwrites a completed file. Attempts count from 1; a request's objects are those of
 * attempts 1 to its attempt count, which is how retention finds every one without listing the bucket.
 */
export function exportObjectKey(request: Pick<ExportRequest, 'id' | 'clientId' | 'format'>, attempt: number): string {
  return `exports/${request.clientId}/${request.id}/attempt-${attempt}.${request.format}`;
}
