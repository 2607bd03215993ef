// The RSP's bulk exports.
import { EXPORT_STATUSES } from '../../resources/exports';
import * as examples from '../examples';
import { z } from '../extend-zod';
import type { ApiOperation } from './api-operation';
import { id, idempotencyKey, json, LIST_ERRORS, page, READ_ERRORS, reply } from './common';
import { SCHEMAS } from './schemas';

export const EXPORT_OPERATIONS: ApiOperation[] = [
  {
    method: 'post',
    path: '/locations/exports',
    operationId: 'requestExport',
    tag: 'Exports',
    summary: 'Request a bulk export',
    description:
      'Without modifiedSince the export is full; with it, only locations modified after it. The export runs in the ' +
      'background; poll its status or wait for the notification webhook. The same Idempotency-Key and body within ' +
      '24 hours answer the first reply again and start nothing. A json file is `{exportTimestamp, totalCount, ' +
      'locations, locationGroups, addressGroups}`: the group arrays (items as in the group lists, by id) hold every ' +
      'live group of a full export, and the groups changed after modifiedSince of an incremental one, deleted ones ' +
      'as tombstones with `deletedAt`. filters.locationGroupId selects locations only. CSV files hold no groups. ' +
      'With includeVersions (json only) every location and group item ends with its `version` (the ETag of ' +
      'GET /locations/{id}, the event.version of webhooks and the change feed), from the same snapshot as the row. ' +
      'With spreadsheetSafe (csv only) formula cells get a leading apostrophe: a file to open in a spreadsheet, not ' +
      'to load into a copy.',
    scope: 'locations:read',
    request: {
      headers: idempotencyKey,
      body: json(SCHEMAS.ExportRequest, { format: 'json', modifiedSince: '2024-02-29T00:00:00Z' }),
    },
    responses: {
      202: reply('Accepted: the export is PENDING.', json(SCHEMAS.ExportAccepted, examples.exampleExportAccepted), [
        'Location',
        'Idempotent-Replayed',
      ]),
    },
    errors: [
      'INVALID_REQUEST',
      'VALIDATION_ERROR',
      'INVALID_FORMAT',
      'INVALID_DATE_RANGE',
      'INVALID_GROUP_REFERENCE',
      'EXPORT_SIZE_EXCEEDED',
      'CONFLICT',
      'RATE_LIMIT_EXCEEDED',
    ],
  },
  {
    method: 'get',
    path: '/locations/exports',
    operationId: 'listExports',
    tag: 'Exports',
    summary: "List the caller's exports, newest first",
    scope: 'locations:read',
    request: { query: z.object({ status: z.enum(EXPORT_STATUSES).optional(), ...page }) },
    responses: { 200: reply('A page of exports.', json(SCHEMAS.ExportList, examples.exampleExportList)) },
    errors: LIST_ERRORS,
  },
  {
    method: 'get',
    path: '/locations/exports/{id}',
    operationId: 'getExport',
    tag: 'Exports',
    summary: 'Get the status of an export',
    description: "The download fields appear once COMPLETED. Another client's export is 404.",
    scope: 'locations:read',
    request: { params: id('The export requestId') },
    responses: {
      200: {
        description: 'The export: PENDING with progress, COMPLETED with its download, or FAILED with the error.',
        headers: ['Cache-Control'],
        body: json(SCHEMAS.ExportStatus, examples.exampleExportCompleted),
      },
    },
    errors: READ_ERRORS,
  },
  {
    method: 'post',
    path: '/locations/exports/{id}/link',
    operationId: 'renewExportLink',
    tag: 'Exports',
    summary: 'Sign a new download URL for a COMPLETED export',
    description: 'While the file is kept; 404 once it has been deleted.',
    scope: 'locations:read',
    request: { params: id('The export requestId') },
    responses: {
      200: reply('The export with a new exportUrl.', json(SCHEMAS.ExportStatus, examples.exampleExportCompleted)),
    },
    errors: [...READ_ERRORS, 'CONFLICT'],
  },
];
