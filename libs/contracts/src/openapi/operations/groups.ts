// Both kinds of group: the RSP's reads and the operator's writes, which follow the same rules.
import type { ErrorCode } from '../../errors/error-codes';
import { nonEmptyStringSchema, utcDateTimeSchema } from '../../primitives';
import * as examples from '../examples';
import { z } from '../extend-zod';
import type { ApiOperation } from './api-operation';
import { id, ifMatch, ifNoneMatch, json, LIST_ERRORS, notModified, pageById, READ_ERRORS, reply } from './common';
import { SCHEMAS } from './schemas';

const GROUP_WRITE_ERRORS: ErrorCode[] = ['INVALID_REQUEST', 'VALIDATION_ERROR', 'CONFLICT'];

/** The write and read operations of one kind of group; both kinds follow the same rules. */
function groupOperations(kind: {
  path: string;
  name: string;
  schema: z.ZodTypeAny;
  input: z.ZodTypeAny;
  patch: z.ZodTypeAny;
  list: z.ZodTypeAny;
  example: { id: string; name: string; type: string };
  listExample: unknown;
  type: string;
}): ApiOperation[] {
  const { example } = kind;
  const input = { name: example.name, type: example.type };
  const written = reply(`The ${kind.name}.`, json(kind.schema, example), ['ETag']);
  const itemPath = `/operator/${kind.path}/{id}`;
  const pascal = kind.name.replace(/(^|\s)(\w)/g, (_, __, letter: string) => letter.toUpperCase());
  return [
    {
      method: 'get',
      path: `/${kind.path}`,
      operationId: `list${pascal}s`,
      tag: 'Groups',
      summary: `List ${kind.name}s`,
      description:
        `Without modifiedSince: the live ${kind.name}s, ordered by name (byte order) then id. With modifiedSince: ` +
        `every ${kind.name} changed after it, ordered by id, a deleted one as a tombstone (its last id, name and ` +
        'type, and `deletedAt`), counted in pagination.total.',
      scope: 'locations:read',
      rateLimited: true,
      request: {
        query: z.object({
          type: z
            .literal(kind.type)
            .optional()
            .openapi({ description: `Always ${kind.type}.` }),
          name: nonEmptyStringSchema
            .optional()
            .openapi({ description: 'Any part of the name, in any case (`%` and `_` are plain characters).' }),
          modifiedSince: utcDateTimeSchema.optional().openapi({
            description: 'Only groups changed after this UTC time, deleted ones included as tombstones with deletedAt.',
          }),
          ...pageById,
        }),
      },
      responses: {
        200: reply(
          `A page of ${kind.name}s (with modifiedSince, tombstones among them).`,
          json(kind.list, kind.listExample),
        ),
      },
      errors: LIST_ERRORS,
    },
    {
      method: 'get',
      path: `/${kind.path}/{id}`,
      operationId: `get${pascal}`,
      tag: 'Groups',
      summary: `Get a ${kind.name}`,
      scope: 'locations:read',
      rateLimited: true,
      request: { params: id(`The ${kind.name} id`), headers: ifNoneMatch },
      responses: { 200: written, 304: notModified },
      errors: READ_ERRORS,
    },
    {
      method: 'post',
      path: `/operator/${kind.path}`,
      operationId: `create${pascal}`,
      tag: 'Operator',
      summary: `Create a ${kind.name}`,
      scope: 'locations:write',
      request: { body: json(kind.input, input) },
      responses: { 201: reply(`Created.`, json(kind.schema, example), ['ETag', 'Location']) },
      errors: GROUP_WRITE_ERRORS,
    },
    {
      method: 'get',
      path: itemPath,
      operationId: `getOperator${pascal}`,
      tag: 'Operator',
      summary: `Get a ${kind.name} as written`,
      scope: 'locations:write',
      request: { params: id(`The ${kind.name} id`) },
      responses: { 200: written },
      errors: READ_ERRORS,
    },
    {
      method: 'put',
      path: itemPath,
      operationId: `replace${pascal}`,
      tag: 'Operator',
      summary: `Create or replace a ${kind.name} at an id`,
      scope: 'locations:write',
      request: { params: id(`The ${kind.name} id`), headers: ifMatch, body: json(kind.input, input) },
      responses: { 200: written, 201: reply('Created at this id.', json(kind.schema, example), ['ETag']) },
      errors: [...GROUP_WRITE_ERRORS, 'PRECONDITION_FAILED'],
    },
    {
      method: 'patch',
      path: itemPath,
      operationId: `update${pascal}`,
      tag: 'Operator',
      summary: `Change fields of a ${kind.name} (JSON Merge Patch)`,
      scope: 'locations:write',
      request: {
        params: id(`The ${kind.name} id`),
        headers: ifMatch,
        body: { schema: kind.patch, example: { name: example.name }, mediaType: 'application/merge-patch+json' },
      },
      responses: { 200: written },
      errors: [...GROUP_WRITE_ERRORS, 'RESOURCE_NOT_FOUND', 'PRECONDITION_FAILED'],
    },
    {
      method: 'delete',
      path: itemPath,
      operationId: `delete${pascal}`,
      tag: 'Operator',
      summary: `Delete a ${kind.name}`,
      description: 'Refused with 409 CONFLICT while locations reference it.',
      scope: 'locations:write',
      request: { params: id(`The ${kind.name} id`), headers: ifMatch },
      responses: { 204: reply('Deleted.') },
      errors: [...READ_ERRORS, 'CONFLICT', 'PRECONDITION_FAILED'],
    },
  ];
}

export const GROUP_OPERATIONS: ApiOperation[] = [
  ...groupOperations({
    path: 'location-groups',
    name: 'location group',
    schema: SCHEMAS.LocationGroup,
    input: SCHEMAS.LocationGroupInput,
    patch: SCHEMAS.LocationGroupPatch,
    list: SCHEMAS.LocationGroupList,
    example: examples.exampleLocationGroup,
    listExample: examples.exampleLocationGroupList,
    type: 'OTHER',
  }),
  ...groupOperations({
    path: 'address-groups',
    name: 'address group',
    schema: SCHEMAS.AddressGroup,
    input: SCHEMAS.AddressGroupInput,
    patch: SCHEMAS.AddressGroupPatch,
    list: SCHEMAS.AddressGroupList,
    example: examples.exampleAddressGroup,
    listExample: examples.exampleAddressGroupList,
    type: 'MDU_COMPLEX',
  }),
];
