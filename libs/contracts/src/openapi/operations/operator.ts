// The operator's writes of locations: one at a time, and imports.
import type { ErrorCode } from '../../errors/error-codes';
import { IMPORT_MEDIA_TYPES, IMPORT_MODES } from '../../resources/imports';
import * as examples from '../examples';
import { z } from '../extend-zod';
import type { ApiOperation } from './api-operation';
import { id, idempotencyKey, ifMatch, json, location, READ_ERRORS, reply } from './common';
import { SCHEMAS } from './schemas';

const LOCATION_WRITE_ERRORS: ErrorCode[] = [
  'INVALID_REQUEST',
  'VALIDATION_ERROR',
  'INVALID_COORDINATES',
  'INVALID_ADDRESS_FORMAT',
  'MISSING_LOCATION_DATA',
  'INVALID_STATUS_TRANSITION',
  'INVALID_GROUP_REFERENCE',
  'CONFLICT',
];

const locationInput = json(SCHEMAS.LocationInput, examples.exampleLocationInput);

export const OPERATOR_OPERATIONS: ApiOperation[] = [
  {
    method: 'post',
    path: '/operator/locations',
    operationId: 'createLocation',
    tag: 'Operator',
    summary: 'Create a location',
    description:
      'The server chooses the id. With an Idempotency-Key, a request repeated with the same key and body (key order ' +
      'aside) by the same client within 24 hours answers the first 201 again (the location as created, ETag "1", ' +
      'header Idempotent-Replayed: true) and creates nothing; the same key with another body is 409 CONFLICT. The ' +
      'request that claimed a key gives it back when refused for its body and nothing was created.',
    scope: 'locations:write',
    request: {
      headers: idempotencyKey,
      body: locationInput,
    },
    responses: { 201: reply('Created.', location, ['ETag', 'Location', 'Idempotent-Replayed']) },
    errors: [...LOCATION_WRITE_ERRORS, 'CONFLICT'],
  },
  {
    method: 'get',
    path: '/operator/locations/{id}',
    operationId: 'getOperatorLocation',
    tag: 'Operator',
    summary: 'Get a location as written',
    scope: 'locations:write',
    request: { params: id('The location id') },
    responses: { 200: reply('The location.', location, ['ETag']) },
    errors: READ_ERRORS,
  },
  {
    method: 'put',
    path: '/operator/locations/{id}',
    operationId: 'replaceLocation',
    tag: 'Operator',
    summary: 'Create or replace a location at an id',
    scope: 'locations:write',
    request: { params: id('The location id'), headers: ifMatch, body: locationInput },
    responses: { 200: reply('Replaced.', location, ['ETag']), 201: reply('Created at this id.', location, ['ETag']) },
    errors: [...LOCATION_WRITE_ERRORS, 'PRECONDITION_FAILED'],
  },
  {
    method: 'patch',
    path: '/operator/locations/{id}',
    operationId: 'updateLocation',
    tag: 'Operator',
    summary: 'Change fields of a location (JSON Merge Patch)',
    description: 'Retire a location by setting its serviceability status to RETIRED.',
    scope: 'locations:write',
    request: {
      params: id('The location id'),
      headers: ifMatch,
      body: {
        schema: SCHEMAS.LocationPatch,
        example: { fiberAccessDetails: { serviceability: { status: 'RETIRED' } } },
        mediaType: 'application/merge-patch+json',
      },
    },
    responses: { 200: reply('The location after the change.', location, ['ETag']) },
    errors: [...LOCATION_WRITE_ERRORS, 'RESOURCE_NOT_FOUND', 'PRECONDITION_FAILED'],
  },
  {
    method: 'post',
    path: '/operator/imports',
    operationId: 'importLocations',
    tag: 'Operator',
    summary: 'Import locations from a file',
    description:
      'NDJSON (one Location per line, `id` required) or CSV (the export columns, with a header row), of any size, ' +
      'streamed. `mode=full-replace` retires the locations the file leaves out. Rows are applied in batches; a ' +
      'rejected row does not stop the import and is listed in the report. A file without rows is refused (400), as a ' +
      'full replace would retire every location. A full replace that would retire more than the configured share ' +
      '(IMPORT_MAX_RETIRE_SHARE, default 10 %) of the locations in service when it began retires nothing and ' +
      'answers 409 CONFLICT ' +
      'with the number (`details.wouldRetire`) unless `confirmRetirements` gives exactly that number; the rows are ' +
      'applied either way.',
    scope: 'locations:write',
    request: {
      query: z.object({
        mode: z.enum(IMPORT_MODES).optional().openapi({ description: 'merge (default) or full-replace.' }),
        confirmRetirements: z.coerce
          .number()
          .int()
          .min(0)
          .max(999_999_999_999_999)
          .optional()
          .openapi({
            description:
              'full-replace only: how many locations the import may retire, exactly (the number a 409 reply gave). ' +
              'Needed when that is more than the configured share of the locations in service.',
          }),
      }),
      body: [
        {
          schema: z.string().openapi({ description: 'NDJSON: one Location per line, `id` required.' }),
          example: examples.exampleImportNdjson,
          mediaType: IMPORT_MEDIA_TYPES.ndjson,
        },
        {
          schema: z.string().openapi({
            description:
              'CSV (RFC 4180): a header row naming the columns of the CSV export (`id` required, any others in any ' +
              'order), then one location per record.',
          }),
          example: examples.exampleImportCsv,
          mediaType: IMPORT_MEDIA_TYPES.csv,
        },
      ],
    },
    responses: { 200: reply('What the import did.', json(SCHEMAS.ImportReport, examples.exampleImportReport)) },
    errors: ['INVALID_REQUEST', 'VALIDATION_ERROR', 'CONFLICT'],
  },
];
