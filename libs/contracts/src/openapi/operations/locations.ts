// The RSP's reads of locations: by id and by group, the change feed, the Merkle digests, the statistics.
import { CHANGE_FEED } from '../../resources/changes';
import { SERVICEABILITY_STATUSES } from '../../resources/location';
import { nonEmptyStringSchema, utcDateTimeSchema, uuidSchema } from '../../primitives';
import * as examples from '../examples';
import { z } from '../extend-zod';
import type { ApiOperation } from './api-operation';
import { id, ifNoneMatch, json, LIST_ERRORS, location, notModified, pageById, READ_ERRORS, reply } from './common';
import { DIGEST_OPERATIONS } from './digest';
import { SCHEMAS } from './schemas';

export const LOCATION_OPERATIONS: ApiOperation[] = [
  {
    method: 'get',
    path: '/locations/{id}',
    operationId: 'getLocation',
    tag: 'Locations',
    summary: 'Get a location',
    description: 'Its version is the ETag; with If-None-Match of the current version the reply is 304 without a body.',
    scope: 'locations:read',
    rateLimited: true,
    request: { params: id('The location id'), headers: ifNoneMatch },
    responses: { 200: reply('The location.', location, ['ETag']), 304: notModified },
    errors: READ_ERRORS,
  },
  {
    method: 'get',
    path: '/locations',
    operationId: 'listLocations',
    tag: 'Locations',
    summary: 'List locations, by group',
    scope: 'locations:read',
    rateLimited: true,
    request: {
      query: z.object({
        locationGroupId: uuidSchema.optional().openapi({ description: 'Only members of this location group.' }),
        addressGroupId: uuidSchema.optional().openapi({ description: 'Only members of this address group (MDU).' }),
        ...pageById,
      }),
    },
    responses: {
      200: reply('A page of locations, ordered by id.', json(SCHEMAS.LocationList, examples.exampleLocationList)),
    },
    errors: LIST_ERRORS,
  },
  {
    method: 'get',
    path: CHANGE_FEED.path,
    operationId: 'listLocationChanges',
    tag: 'Locations',
    summary: 'Read the change feed: every location and group change after a cursor, in commit order',
    description:
      'Changes of locations and of both kinds of groups, each exactly as the webhook to /locations/events describes ' +
      "it, in the order the feed committed them (a resource's changes in version order), without gaps or repeats. " +
      "Start without `after` (the oldest change retained), then pass each reply's `next`; when `hasMore` is false, " +
      'poll `next` again later. Changes are retained for CHANGE_FEED_RETENTION_DAYS (at least 7 days); a cursor ' +
      'older than that, or from before a rebuild of the feed, is refused with 410 CHANGE_CURSOR_EXPIRED: take a ' +
      'full export, then read from the start again and apply only versions newer than the copy holds.',
    scope: 'locations:read',
    rateLimited: true,
    request: {
      query: z.object({
        after: z.string().min(1).optional().openapi({
          description: 'The `next` of a previous reply, unchanged (opaque); absent: from the oldest retained.',
        }),
        limit: z.coerce
          .number()
          .int()
          .min(1)
          .max(CHANGE_FEED.maxLimit)
          .optional()
          .openapi({ description: `Most changes, 1 to ${CHANGE_FEED.maxLimit}; default ${CHANGE_FEED.defaultLimit}.` }),
      }),
    },
    responses: {
      200: reply(
        'Up to `limit` changes after the cursor, in feed order.',
        json(SCHEMAS.ChangeFeedPage, {
          changes: [examples.exampleLocationEvent],
          next: 'eyJ2IjoxLCJlIjoiOWYzYzJhMWI0ZDVlNmY3MCIsInQiOiI3NDIxIiwicyI6IjEwMjQifQ',
          hasMore: false,
        }),
      ),
    },
    errors: ['INVALID_REQUEST', 'INVALID_LIMIT', 'INVALID_FILTER', 'CHANGE_CURSOR_EXPIRED'],
  },
  ...DIGEST_OPERATIONS,
  {
    method: 'get',
    path: '/locations/statistics',
    operationId: 'getLocationStatistics',
    tag: 'Statistics',
    summary: 'Count locations, by the filters given (all combined)',
    description:
      'For the daily check of a copy: compare totalCount and the counts by status with the copy; export when they differ.',
    scope: 'locations:read',
    rateLimited: true,
    request: {
      query: z.object({
        status: z
          .array(z.enum(SERVICEABILITY_STATUSES))
          .optional()
          .openapi({ description: 'Only these statuses (repeat the parameter, or separate them by commas).' }),
        modifiedSince: utcDateTimeSchema.optional().openapi({ description: 'Only locations updated after this time.' }),
        modifiedBefore: utcDateTimeSchema
          .optional()
          .openapi({ description: 'Only locations updated before this time.' }),
        hasAddress: z.boolean().optional(),
        hasCoordinates: z.boolean().optional(),
        hasLocationGroup: z.boolean().optional(),
        addressGroupId: uuidSchema.optional(),
        locationGroupId: uuidSchema.optional(),
        country: z
          .string()
          .regex(/^[A-Za-z]{2}$/)
          .optional()
          .openapi({ description: 'ISO 3166-1 alpha-2.' }),
        region: nonEmptyStringSchema.optional(),
        locality: nonEmptyStringSchema.optional(),
        postalCode: nonEmptyStringSchema.optional(),
      }),
    },
    responses: { 200: reply('The counts.', json(SCHEMAS.Statistics, examples.exampleStatistics)) },
    errors: ['INVALID_STATUS', 'INVALID_FILTER', 'INVALID_DATE_RANGE'],
  },
];
