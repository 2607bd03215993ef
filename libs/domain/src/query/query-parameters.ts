import {
  ADMIN_DELIVERY_LIST_PARAMETERS,
  CHANGE_FEED,
  CHANGE_FEED_PARAMETERS,
  DELIVERY_LIST_PARAMETERS,
  DELIVERY_STATUSES,
  DIGEST,
  DIGEST_ENTRIES_PARAMETERS,
  DIGEST_PARAMETERS,
  type DeliveryStatus,
  EXPORT_FORMATS,
  EXPORT_LIST_PARAMETERS,
  exportFormatSchema,
  EXPORT_STATUSES,
  type ExportFormat,
  type ExportStatus,
  GROUP_LIST_PARAMETERS,
  isUuid,
  LOCATION_LIST_PARAMETERS,
  LOCATION_SNAPSHOT,
  PAGINATION,
  SERVICEABILITY_STATUSES,
  type ServiceabilityStatus,
  STATISTICS_PARAMETERS,
  utcDateTimeSchema,
  type ValidationIssue,
} from '@lx/contracts';
import { ValidationFailedError, type ValidationErrorCode } from '../errors/domain-error';
import type { Result } from '../result';

/** A parsed query string: each parameter once (a string) or repeated (an array), as HTTP frameworks hand it over. */
export type QueryParameters = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * limit and offset of a list; `after` (lists paged by id): only items whose id is greater, in id order, with
 * offset 0.
 */
export interface Page {
  limit: number;
  offset: number;
  after?: string;
}

/** GET /locations: optional group filters and the page. */
export interface LocationListQuery {
  page: Page;
  locationGroupId?: string;
  addressGroupId?: string;
}

/**
 * GET /location-groups and /address-groups: optional exact type, partial case-insensitive name, the page, and
 * modifiedSince: only the groups changed after it, deleted ones as tombstones.
 */
export interface GroupListQuery {
  page: Page;
  type?: string;
  name?: string;
  modifiedSince?: string;
}

/**
 * GET /locations/statistics filters, combined with AND. `statuses` matches locations whose serviceability status is
 * one of them (a location without serviceability matches no status); the times are exclusive bounds on updatedAt.
 */
export interface StatisticsFilter {
  statuses?: ServiceabilityStatus[];
  modifiedSince?: string;
  modifiedBefore?: string;
  hasAddress?: boolean;
  hasCoordinates?: boolean;
  hasLocationGroup?: boolean;
  addressGroupId?: string;
  locationGroupId?: string;
  country?: string;
  region?: string;
  locality?: string;
  postalCode?: string;
}

const INTEGER = /^(0|[1-9]\d{0,15})$/;
const COUNTRY = /^[A-Za-z]{2}$/;
const STATUSES: ReadonlySet<string> = new Set(SERVICEABILITY_STATUSES);

/**
 * Collects problems parameter by parameter; the reply's code is the first problem's, and details.issues name every
 * problem with its parameter as `field`.
 */
class Problems {
  private readonly found: { code: ValidationErrorCode; issue: ValidationIssue }[] = [];

  add(code: ValidationErrorCode, field: string, rule: string, message: string): undefined {
    this.found.push({ code, issue: { field, rule, message } });
    return undefined;
  }

  result<T>(value: T): Result<T, ValidationFailedError> {
    const first = this.found[0];
    if (first === undefined) return { ok: true, value };
    return {
      ok: false,
      error: new ValidationFailedError(
        this.found.map((problem) => problem.issue),
        first.code,
      ),
    };
  }
}

function unknownParameters(query: QueryParameters, known: readonly string[], problems: Problems): void {
  for (const name of Object.keys(query)) {
    if (!known.includes(name)) {
      problems.add('INVALID_FILTER', name, 'unknownParameter', `${name} is not a known query parameter`);
    }
  }
}

/** The single value of a parameter; a repeated parameter is a problem reported under `code`. */
function single(query: QueryParameters, name: string, code: ValidationErrorCode, problems: Problems) {
  const value = query[name];
  if (value === undefined) return value;
  if (typeof value !== 'string') return problems.add(code, name, 'single', `${name} must be given once`);
  // PostgreSQL can compare with no text that holds U+0000, so no parameter may.
  if (value.includes('\u0000')) {
    return problems.add(code, name, 'noNulCharacter', `${name} must not contain the NUL character (U+0000)`);
  }
  return value;
}

function integer(
  query: QueryParameters,
  name: 'limit' | 'offset',
  code: ValidationErrorCode,
  accept: (value: number) => boolean,
  requirement: string,
  fallback: number,
  problems: Problems,
): number {
  const raw = single(query, name, code, problems);
  if (raw === undefined) return fallback;
  const value = INTEGER.test(raw) ? Number(raw) : NaN;
  if (Number.isSafeInteger(value) && accept(value)) return value;
  problems.add(code, name, 'range', `${name} must be ${requirement}`);
  return fallback;
}

/**
 * limit, offset (at most PAGINATION.maxOffset) and, where the list is paged by id (`byId`), `after`: a UUID, not
 * combined with an offset. Past the offset cap the message says how to read further: by `after` or narrower filters.
 */
function parsePage(query: QueryParameters, problems: Problems, byId = false): Page {
  const limit = integer(
    query,
    'limit',
    'INVALID_LIMIT',
    (value) => value >= 1 && value <= PAGINATION.maxLimit,
    `an integer from 1 to ${PAGINATION.maxLimit}`,
    PAGINATION.defaultLimit,
    problems,
  );
  const offset = integer(
    query,
    'offset',
    'INVALID_OFFSET',
    (value) => value <= PAGINATION.maxOffset,
    `an integer from 0 to ${PAGINATION.maxOffset}${
      byId ? '; read further by after (each page names it as pagination.next)' : '; narrow the filters to read further'
    }`,
    PAGINATION.defaultOffset,
    problems,
  );
  if (!byId) return { limit, offset };
  const after = single(query, 'after', 'INVALID_OFFSET', problems);
  if (after === undefined) return { limit, offset };
  if (!isUuid(after)) {
    problems.add('INVALID_OFFSET', 'after', 'uuid', 'after must be a UUID');
    return { limit, offset };
  }
  if (offset !== 0) problems.add('INVALID_OFFSET', 'offset', 'withAfter', 'offset cannot be combined with after');
  return { limit, offset: 0, after: after.toLowerCase() };
}

function uuid(query: QueryParameters, name: string, problems: Problems): string | undefined {
  const raw = single(query, name, 'INVALID_FILTER', problems);
  if (raw === undefined) return undefined;
  if (isUuid(raw)) return raw.toLowerCase();
  return problems.add('INVALID_FILTER', name, 'uuid', `${name} must be a UUID`);
}

function text(query: QueryParameters, name: string, problems: Problems): string | undefined {
  const raw = single(query, name, 'INVALID_FILTER', problems);
  if (raw === undefined) return undefined;
  if (raw.trim() !== '') return raw;
  return problems.add('INVALID_FILTER', name, 'nonEmpty', `${name} must not be empty`);
}

function boolean(query: QueryParameters, name: string, problems: Problems): boolean | undefined {
  const raw = single(query, name, 'INVALID_FILTER', problems);
  if (raw === undefined) return undefined;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  return problems.add('INVALID_FILTER', name, 'boolean', `${name} must be true or false`);
}

/** A UTC `Z` date-time; anything else, or the parameter repeated, is a problem reported under `code`. */
function dateTime(
  query: QueryParameters,
  name: string,
  problems: Problems,
  code: ValidationErrorCode = 'INVALID_FILTER',
): string | undefined {
  const raw = single(query, name, code, problems);
  if (raw === undefined) return undefined;
  if (utcDateTimeSchema.safeParse(raw).success) return raw;
  return problems.add(
    code,
    name,
    'dateTime',
    `${name} must be an ISO 8601 UTC date-time ending in Z, like 2024-01-31T09:30:00Z`,
  );
}

/**
 * Statuses from one or more comma-separated lists (`status=ACTIVE,PLANNED`, or the parameter repeated): each must
 * be one of the six, exactly as spelled in the spec; blanks around commas are ignored, empty items are not.
 */
function statuses(query: QueryParameters, problems: Problems): ServiceabilityStatus[] | undefined {
  const raw = query['status'];
  if (raw === undefined) return undefined;
  const items = (typeof raw === 'string' ? [raw] : raw).flatMap((list) => list.split(',')).map((item) => item.trim());
  const unknown = items.filter((item) => !STATUSES.has(item));
  if (unknown.length > 0) {
    return problems.add(
      'INVALID_STATUS',
      'status',
      'enum',
      `status must be a comma-separated list of ${SERVICEABILITY_STATUSES.join(', ')}; not ${unknown
        .map((item) => JSON.stringify(item))
        .join(', ')}`,
    );
  }
  return [...new Set(items as ServiceabilityStatus[])];
}

/** Parses GET /locations parameters (paged by id: `after`); problems: INVALID_LIMIT, INVALID_OFFSET, INVALID_FILTER. */
export function parseLocationListQuery(query: QueryParameters): Result<LocationListQuery, ValidationFailedError> {
  const problems = new Problems();
  unknownParameters(query, LOCATION_LIST_PARAMETERS, problems);
  const parsed: LocationListQuery = { page: parsePage(query, problems, true) };
  const locationGroupId = uuid(query, 'locationGroupId', problems);
  const addressGroupId = uuid(query, 'addressGroupId', problems);
  if (locationGroupId !== undefined) parsed.locationGroupId = locationGroupId;
  if (addressGroupId !== undefined) parsed.addressGroupId = addressGroupId;
  return problems.result(parsed);
}

/**
 * Parses the group list parameters. `type` must be the one type of the kind (OTHER for location groups,
 * MDU_COMPLEX for address groups); anything else is INVALID_FILTER rather than an empty list, so a typo shows.
 * `modifiedSince` is a UTC `Z` date-time, else INVALID_FILTER, as the statistics' modifiedSince.
 */
export function parseGroupListQuery(
  query: QueryParameters,
  groupType: 'OTHER' | 'MDU_COMPLEX',
): Result<GroupListQuery, ValidationFailedError> {
  const problems = new Problems();
  unknownParameters(query, GROUP_LIST_PARAMETERS, problems);
  const parsed: GroupListQuery = { page: parsePage(query, problems, true) };
  const type = single(query, 'type', 'INVALID_FILTER', problems);
  if (type !== undefined) {
    if (type === groupType) parsed.type = type;
    else problems.add('INVALID_FILTER', 'type', 'enum', `type must be ${groupType}`);
  }
  const name = text(query, 'name', problems);
  if (name !== undefined) parsed.name = name;
  const modifiedSince = dateTime(query, 'modifiedSince', problems);
  if (modifiedSince !== undefined) parsed.modifiedSince = modifiedSince;
  return problems.result(parsed);
}

/** The internal snapshot stream's parameters. */
export interface SnapshotQuery {
  /** Only locations updated after this UTC date-time. */
  modifiedSince?: string;
  /** Only the locations of this location group (lower-case UUID). */
  locationGroupId?: string;
  /** Open the snapshot only once the read model has caught up with the location topic's end. */
  catchUp?: boolean;
  /** NDJSON of Locations (json, the default) or CSV records (csv). */
  format?: ExportFormat;
  /** json only: the snapshot's location groups and address groups follow the locations. */
  groups?: boolean;
  /** json only: every line ends with the row's version. */
  versions?: boolean;
}

/**
 * Parses the internal snapshot stream's parameters: modifiedSince, invalid as in the export request
 * (INVALID_DATE_RANGE); locationGroupId, a UUID, and catchUp and groups, true or false (INVALID_FILTER otherwise);
 * format, json or csv (INVALID_FORMAT otherwise). groups=true and versions=true (also true or false) with format=csv
 * are INVALID_FILTER: a CSV record has no place for groups or versions.
 */
export function parseSnapshotQuery(query: QueryParameters): Result<SnapshotQuery, ValidationFailedError> {
  const problems = new Problems();
  unknownParameters(
    query,
    [
      LOCATION_SNAPSHOT.modifiedSinceParameter,
      LOCATION_SNAPSHOT.locationGroupIdParameter,
      LOCATION_SNAPSHOT.catchUpParameter,
      LOCATION_SNAPSHOT.formatParameter,
      LOCATION_SNAPSHOT.groupsParameter,
      LOCATION_SNAPSHOT.versionsParameter,
    ],
    problems,
  );
  const parsed: SnapshotQuery = {};
  const modifiedSince = dateTime(query, 'modifiedSince', problems, 'INVALID_DATE_RANGE');
  if (modifiedSince !== undefined) parsed.modifiedSince = modifiedSince;
  const locationGroupId = uuid(query, LOCATION_SNAPSHOT.locationGroupIdParameter, problems);
  if (locationGroupId !== undefined) parsed.locationGroupId = locationGroupId;
  const catchUp = boolean(query, LOCATION_SNAPSHOT.catchUpParameter, problems);
  if (catchUp !== undefined) parsed.catchUp = catchUp;
  const format = single(query, LOCATION_SNAPSHOT.formatParameter, 'INVALID_FORMAT', problems);
  if (format !== undefined) {
    const knownFormat = exportFormatSchema.safeParse(format);
    if (knownFormat.success) parsed.format = knownFormat.data;
    else problems.add('INVALID_FORMAT', 'format', 'enum', `format must be ${EXPORT_FORMATS.join(' or ')}`);
  }
  const groups = boolean(query, LOCATION_SNAPSHOT.groupsParameter, problems);
  if (groups === true && parsed.format === 'csv') {
    problems.add('INVALID_FILTER', 'groups', 'jsonOnly', 'groups=true needs format=json: CSV records hold no groups');
  } else if (groups !== undefined) {
    parsed.groups = groups;
  }
  const versions = boolean(query, LOCATION_SNAPSHOT.versionsParameter, problems);
  if (versions === true && parsed.format === 'csv') {
    problems.add(
      'INVALID_FILTER',
      'versions',
      'jsonOnly',
      'versions=true needs format=json: CSV records hold no version',
    );
  } else if (versions !== undefined) {
    parsed.versions = versions;
  }
  return problems.result(parsed);
}

/**
 * Parses GET /locations/statistics parameters. Problems: INVALID_STATUS for a status that is not one of the six;
 * INVALID_FILTER for an unknown parameter, a date-time, boolean, UUID or country code that does not parse, an empty
 * value, or a repeated parameter other than status; INVALID_DATE_RANGE when modifiedSince is not before
 * modifiedBefore (the OAF-100 meaning of that code).
 */
export function parseStatisticsQuery(query: QueryParameters): Result<StatisticsFilter, ValidationFailedError> {
  const problems = new Problems();
  unknownParameters(query, STATISTICS_PARAMETERS, problems);
  const filter: StatisticsFilter = {};
  const set = <K extends keyof StatisticsFilter>(key: K, value: StatisticsFilter[K] | undefined) => {
    if (value !== undefined) filter[key] = value;
  };
  set('statuses', statuses(query, problems));
  set('modifiedSince', dateTime(query, 'modifiedSince', problems));
  set('modifiedBefore', dateTime(query, 'modifiedBefore', problems));
  set('hasAddress', boolean(query, 'hasAddress', problems));
  set('hasCoordinates', boolean(query, 'hasCoordinates', problems));
  set('hasLocationGroup', boolean(query, 'hasLocationGroup', problems));
  set('addressGroupId', uuid(query, 'addressGroupId', problems));
  set('locationGroupId', uuid(query, 'locationGroupId', problems));
  const country = single(query, 'country', 'INVALID_FILTER', problems);
  if (country !== undefined) {
    if (COUNTRY.test(country)) filter.country = country.toUpperCase();
    else problems.add('INVALID_FILTER', 'country', 'countryCode', 'country must be an ISO 3166-1 alpha-2 code');
  }
  set('region', text(query, 'region', problems));
  set('locality', text(query, 'locality', problems));
  set('postalCode', text(query, 'postalCode', problems));
  if (
    filter.modifiedSince !== undefined &&
    filter.modifiedBefore !== undefined &&
    !(Date.parse(filter.modifiedSince) < Date.parse(filter.modifiedBefore))
  ) {
    problems.add('INVALID_DATE_RANGE', 'modifiedSince', 'dateRange', 'modifiedSince must be before modifiedBefore');
  }
  return problems.result(filter);
}

/** GET /locations/changes: the page size and, when given, the (still encoded) cursor to continue after. */
export interface ChangeFeedQuery {
  limit: number;
  after?: string;
}

/**
 * Parses GET /locations/changes parameters. Problems: INVALID_LIMIT (limit not 1 to 1000, as on every list),
 * INVALID_REQUEST for an empty or repeated `after` (what the cursor holds is checked where it is decoded),
 * INVALID_FILTER for an unknown parameter.
 */
export function parseChangeFeedQuery(query: QueryParameters): Result<ChangeFeedQuery, ValidationFailedError> {
  const problems = new Problems();
  unknownParameters(query, CHANGE_FEED_PARAMETERS, problems);
  const limit = integer(
    query,
    'limit',
    'INVALID_LIMIT',
    (value) => value >= 1 && value <= CHANGE_FEED.maxLimit,
    `an integer from 1 to ${CHANGE_FEED.maxLimit}`,
    CHANGE_FEED.defaultLimit,
    problems,
  );
  const parsed: ChangeFeedQuery = { limit };
  const after = single(query, CHANGE_FEED.afterParameter, 'INVALID_REQUEST', problems);
  if (after !== undefined) {
    if (after === '') problems.add('INVALID_REQUEST', 'after', 'cursor', "after must be a cursor from a reply's next");
    else parsed.after = after;
  }
  return problems.result(parsed);
}

/** GET …/digest: the node (lower-case hex prefix, '' the root) and how many levels of children to list. */
export interface DigestQuery {
  prefix: string;
  depth: number;
}

const HEX_PREFIX = /^[0-9a-fA-F]*$/;
const DEPTH = /^[1-9]\d{0,2}$/;

/** A node prefix of 0 to `maxLength` hex digits, either case, answered in lower case. */
function digestPrefix(query: QueryParameters, maxLength: number, problems: Problems): string | undefined {
  const raw = single(query, DIGEST.prefixParameter, 'INVALID_FILTER', problems);
  if (raw === undefined) return '';
  if (HEX_PREFIX.test(raw) && raw.length <= maxLength) return raw.toLowerCase();
  return problems.add(
    'INVALID_FILTER',
    DIGEST.prefixParameter,
    'hexPrefix',
    `prefix must be 0 to ${maxLength} hex digits (0-9, a-f)`,
  );
}

/**
 * Parses GET /locations/digest (and the group ones): prefix 0 to 7 hex digits (the children are at most 8 deep),
 * depth an integer from 1 to 3 (default 1), and prefix length + depth at most 8. Every problem is INVALID_FILTER.
 */
export function parseDigestQuery(query: QueryParameters): Result<DigestQuery, ValidationFailedError> {
  const problems = new Problems();
  unknownParameters(query, DIGEST_PARAMETERS, problems);
  const prefix = digestPrefix(query, DIGEST.maxPrefixLength - 1, problems);
  const raw = single(query, DIGEST.depthParameter, 'INVALID_FILTER', problems);
  let depth: number = DIGEST.defaultDepth;
  if (raw !== undefined) {
    const value = DEPTH.test(raw) ? Number(raw) : NaN;
    if (value >= 1 && value <= DIGEST.maxDepth) depth = value;
    else
      problems.add(
        'INVALID_FILTER',
        DIGEST.depthParameter,
        'range',
        `depth must be an integer from 1 to ${DIGEST.maxDepth}`,
      );
  }
  if (prefix !== undefined && prefix.length + depth > DIGEST.maxPrefixLength) {
    problems.add(
      'INVALID_FILTER',
      DIGEST.depthParameter,
      'maxPrefixLength',
      `the length of prefix plus depth must be at most ${DIGEST.maxPrefixLength} (children are at most ${DIGEST.maxPrefixLength} hex digits)`,
    );
  }
  return problems.result({ prefix: prefix ?? '', depth });
}

/** Parses GET …/digest/entries: prefix 0 to 8 hex digits, either case; any other parameter is INVALID_FILTER. */
export function parseDigestEntriesQuery(query: QueryParameters): Result<{ prefix: string }, ValidationFailedError> {
  const problems = new Problems();
  unknownParameters(query, DIGEST_ENTRIES_PARAMETERS, problems);
  const prefix = digestPrefix(query, DIGEST.maxPrefixLength, problems);
  return problems.result({ prefix: prefix ?? '' });
}

/** GET /locations/exports: an optional status and the page. */
export interface ExportListQuery {
  page: Page;
  status?: ExportStatus;
}

/** Parses GET /locations/exports parameters; problems: INVALID_LIMIT, INVALID_OFFSET, INVALID_FILTER. */
export function parseExportListQuery(query: QueryParameters): Result<ExportListQuery, ValidationFailedError> {
  const problems = new Problems();
  unknownParameters(query, EXPORT_LIST_PARAMETERS, problems);
  const parsed: ExportListQuery = { page: parsePage(query, problems) };
  const status = single(query, 'status', 'INVALID_FILTER', problems);
  if (status !== undefined) {
    if ((EXPORT_STATUSES as readonly string[]).includes(status)) parsed.status = status as ExportStatus;
    else problems.add('INVALID_FILTER', 'status', 'enum', `status must be one of ${EXPORT_STATUSES.join(', ')}`);
  }
  return problems.result(parsed);
}

/** GET /webhooks/deliveries and /admin/webhooks/deliveries: status, creation-time bounds, the client (SRE only), page. */
export interface DeliveryListQuery {
  page: Page;
  status?: DeliveryStatus;
  /** Created at or after. */
  since?: string;
  /** Created before. */
  until?: string;
  clientId?: string;
}

/**
 * Parses a delivery list query; `clientId` is a parameter of the SRE's list only (an RSP sees its own deliveries).
 * Problems: INVALID_LIMIT, INVALID_OFFSET, INVALID_FILTER, INVALID_DATE_RANGE (since not before until).
 */
export function parseDeliveryListQuery(
  query: QueryParameters,
  scope: 'client' | 'admin',
): Result<DeliveryListQuery, ValidationFailedError> {
  const problems = new Problems();
  unknownParameters(query, scope === 'admin' ? ADMIN_DELIVERY_LIST_PARAMETERS : DELIVERY_LIST_PARAMETERS, problems);
  const parsed: DeliveryListQuery = { page: parsePage(query, problems) };
  const status = single(query, 'status', 'INVALID_FILTER', problems);
  if (status !== undefined) {
    if ((DELIVERY_STATUSES as readonly string[]).includes(status)) parsed.status = status as DeliveryStatus;
    else problems.add('INVALID_FILTER', 'status', 'enum', `status must be one of ${DELIVERY_STATUSES.join(', ')}`);
  }
  const since = dateTime(query, 'since', problems);
  const until = dateTime(query, 'until', problems);
  const clientId = scope === 'admin' ? text(query, 'clientId', problems) : undefined;
  if (since !== undefined) parsed.since = since;
  if (until !== undefined) parsed.until = until;
  if (clientId !== undefined) parsed.clientId = clientId;
  if (since !== undefined && until !== undefined && !(Date.parse(since) < Date.parse(until))) {
    problems.add('INVALID_DATE_RANGE', 'since', 'dateRange', 'since must be before until');
  }
  return problems.result(parsed);
}
