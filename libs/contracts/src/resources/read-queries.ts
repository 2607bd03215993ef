import { z } from 'zod';
import { utcDateTimeSchema } from '../primitives';
import { paginationSchema } from './groups';
import { locationSchema } from './location';

/** Reply of GET /locations: one page of locations, ordered by id, in the shape of the group lists. */
export const locationListSchema = z
  .object({ locations: z.array(locationSchema), pagination: paginationSchema })
  .strict();
/** Reply of GET /locations. */
export type LocationList = z.infer<typeof locationListSchema>;

/** Query parameters of GET /locations; any other is refused (INVALID_FILTER). */
export const LOCATION_LIST_PARAMETERS = ['locationGroupId', 'addressGroupId', 'limit', 'offset', 'after'] as const;

/** Query parameters of GET /location-groups and GET /address-groups; any other is refused (INVALID_FILTER). */
export const GROUP_LIST_PARAMETERS = ['type', 'name', 'modifiedSince', 'limit', 'offset', 'after'] as const;

/** Query parameters of GET /locations/statistics (spec), combined with AND; any other is refused (INVALID_FILTER). */
export const STATISTICS_PARAMETERS = [
  'status',
  'modifiedSince',
  'modifiedBefore',
  'hasAddress',
  'hasCoordinates',
  'hasLocationGroup',
  'addressGroupId',
  'locationGroupId',
  'country',
  'region',
  'locality',
  'postalCode',
] as const;
/** One statistics query parameter. */
export type StatisticsParameter = (typeof STATISTICS_PARAMETERS)[number];

/**
 * The internal snapshot stream of location-query, for the export worker: the locations of a consistent snapshot of
 * the read model, ordered by id, as NDJSON (one Location per line, `format=json`, the default) or as CSV records
 * (`format=csv`: one locationCsvRecord per location, CRLF-terminated, no header row). Not routed by the public
 * ingress; needs a token with locations:internal (only the internal services' client holds it).
 */
export const LOCATION_SNAPSHOT = {
  path: '/internal/locations/snapshot',
  /** Content type per `format`. */
  contentTypes: { json: 'application/x-ndjson', csv: 'text/csv; charset=utf-8' },
  /** `json` (default) or `csv`. */
  formatParameter: 'format',
  /** Only locations whose updatedAt is after this UTC date-time. */
  modifiedSinceParameter: 'modifiedSince',
  /**
   * `true`: the snapshot opens only once the read model has applied the location topic (with `groups=true` also both
   * group topics) up to its end offsets as they were when the request arrived (503 SERVICE_UNAVAILABLE if it does not
   * within the service's catch-up timeout). After a watermark fence of location-command, it then holds every change
   * with updatedAt (a group's: its event's timestamp) at or before the watermark.
   */
  catchUpParameter: 'catchUp',
  /** Only the locations of this location group (a UUID). */
  locationGroupIdParameter: 'locationGroupId',
  /**
   * `true` (json only): after the locations, the same snapshot's location groups, then its address groups, one
   * LocationGroupListItem / AddressGroupListItem per line, ordered by id. Without modifiedSince the live groups;
   * with it every group changed after it, tombstones (deletedAt) included. locationGroupId does not select groups.
   */
  groupsParameter: 'groups',
  /**
   * `true` (json only): each line ends with the row's version in the same snapshot, as its last key: a location's
   * line is its stored body (byte for byte as GET /locations/{id} serves it) with `,"version":n` before the closing
   * brace; a group line is its list item, `deletedAt` included, then `version`.
   */
  versionsParameter: 'versions',
  /**
   * When the snapshot was taken (UTC `Z`), by the read side's clock. Not a watermark: the read model may lag the
   * writes, so chained incremental exports take their exportTimestamp from WATERMARK_FENCE instead.
   */
  timestampHeader: 'x-snapshot-timestamp',
  /** How many locations the stream holds: the export's totalCount. */
  totalCountHeader: 'x-total-count',
  /** With `groups=true`: how many location group lines follow the locations. */
  locationGroupCountHeader: 'x-location-group-count',
  /** With `groups=true`: how many address group lines follow the location groups. */
  addressGroupCountHeader: 'x-address-group-count',
} as const;

/**
 * The internal watermark fence of location-command, for the export worker: POST answers once every location change
 * with updatedAt at or before `watermark` has been published. Not routed by the public ingress; needs locations:internal.
 */
export const WATERMARK_FENCE = {
  path: '/internal/watermark',
} as const;

/** Reply of the watermark fence. */
export const watermarkReplySchema = z.object({ watermark: utcDateTimeSchema }).strict();
/** Reply of the watermark fence. */
export type WatermarkReply = z.infer<typeof watermarkReplySchema>;
