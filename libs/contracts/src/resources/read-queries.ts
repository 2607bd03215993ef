import { z } from 'zod';
import { paginationSchema } from './groups';
import { locationSchema } from './location';

/** Reply of GET /locations: one page of locations, ordered by id, in the shape of the group lists. */
export const locationListSchema = z
  .object({ locations: z.array(locationSchema), pagination: paginationSchema })
  .strict();
/** Reply of GET /locations. */
export type LocationList = z.infer<typeof locationListSchema>;

/** Query parameters of GET /locations; any other is refused (INVALID_FILTER). */
export const LOCATION_LIST_PARAMETERS = ['locationGroupId', 'addressGroupId', 'limit', 'offset'] as const;

/** Query parameters of GET /location-groups and GET /address-groups; any other is refused (INVALID_FILTER). */
export const GROUP_LIST_PARAMETERS = ['type', 'name', 'limit', 'offset'] as const;

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
 * The internal snapshot stream of location-query, for the export worker: NDJSON, one Location per line, of a
 * consistent snapshot of the read model. Not routed by the public ingress; needs a token with locations:read.
 */
export const LOCATION_SNAPSHOT = {
  path: '/internal/locations/snapshot',
  contentType: 'application/x-ndjson',
  /** Only locations whose updatedAt is after this UTC date-time. */
  modifiedSinceParameter: 'modifiedSince',
  /** When the snapshot was taken (UTC `Z`): the export's exportTimestamp. */
  timestampHeader: 'x-snapshot-timestamp',
  /** How many lines the stream holds: the export's totalCount. */
  totalCountHeader: 'x-total-count',
} as const;
