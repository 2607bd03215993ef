import { parse } from 'csv-parse/sync';
import { isRecord } from '../is-record';
import { IMPORT_MEDIA_TYPES } from '../resources/imports';
import { locationInputSchema, locationSchema } from '../resources/location';
import { csvHeaderIssues, csvRowToLocationInput, LOCATION_CSV_COLUMNS } from '../resources/location-csv';
import { validate } from '../validation';
import { EXPORT_FILE_SCHEMAS, openApiDocument, type OpenApiDocument } from './document';
import { EXAMPLE_IDS, exampleLocation, exampleLocationInput } from './examples';
import { API_OPERATIONS, type Body, mediaTypeOf, requestBodies, WEBHOOK_TAG } from './operations';

describe('the OpenAPI document', () => {
  const document = openApiDocument({ serverUrl: 'https://api.example.net' });

  it('is OpenAPI 3.1 with this deployment as its server and token URL base', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: 'https://api.example.net' }]);
    expect(document.components?.securitySchemes?.['oauth2']).toMatchObject({
      type: 'oauth2',
      flows: { clientCredentials: { tokenUrl: 'https://api.example.net/oauth/token' } },
    });
    expect(Object.keys(document.webhooks ?? {}).sort()).toEqual(['exportNotification', 'locationEvent']);
  });

  describe.each([
    ['the whole document', document],
    ["the RSP's document", openApiDocument({ serverUrl: 'https://api.example.net', audience: 'rsp' })],
  ])('%s, for client generators', (_name, doc) => {
    const schemas = doc.components?.schemas ?? {};

    it('refers to each named schema it uses, and to none it lacks', () => {
      const referenced = new Set(refsIn({ ...doc, components: { ...doc.components, schemas: {} } }));
      // What the export files refer to (the exported location) is used by them, though no operation names the files.
      EXPORT_FILE_SCHEMAS.forEach((name) => refsIn(schemas[name]).forEach((ref) => referenced.add(ref)));
      for (let grown = true; grown;) {
        const before = referenced.size;
        for (const name of [...referenced]) refsIn(schemas[name]).forEach((ref) => referenced.add(ref));
        grown = referenced.size > before;
      }
      const unused = Object.keys(schemas).filter((name) => !referenced.has(name));
      expect(unused.sort()).toEqual([...EXPORT_FILE_SCHEMAS].sort());
      expect([...referenced].filter((name) => schemas[name] === undefined)).toEqual([]);
    });

    it('names the shapes it repeats: a Location is referred to, never copied', () => {
      expect(schemas['LocationList']).toMatchObject({
        properties: { locations: { items: { $ref: '#/components/schemas/Location' } } },
      });
      expect(schemas['LocationUpdatedEvent']).toMatchObject({
        properties: { data: { $ref: '#/components/schemas/Location' } },
      });
      expect(schemas['JsonExportFile']).toMatchObject({
        properties: { locations: { items: { $ref: '#/components/schemas/ExportedLocation' } } },
      });
      const copies = nodesOf(doc).filter((node) => isRecord(node['properties']) && 'geography' in node['properties']);
      // The Location's own fields are spelled out only in the named schemas of its shapes (as read, written, patched,
      // exported with its version).
      const named = ['Location', 'LocationInput', 'LocationPatch', 'ExportedLocation'].filter(
        (name) => name in schemas,
      );
      expect(copies).toHaveLength(named.length);
      expect(copies).toEqual(expect.arrayContaining(named.map((name) => schemas[name])));
    });

    it('states every union that a field decides as a oneOf of references with a discriminator', () => {
      expect(schemas['ExportStatus']).toEqual({
        oneOf: ['ExportPending', 'ExportCompleted', 'ExportFailed'].map((name) => ({ $ref: ref(name) })),
        discriminator: {
          propertyName: 'status',
          mapping: { PENDING: ref('ExportPending'), COMPLETED: ref('ExportCompleted'), FAILED: ref('ExportFailed') },
        },
      });
      // The change events, as the webhook to /locations/events and the change feed's items carry them.
      const changeEvents: Record<string, string> = {
        LOCATION_CREATED: 'LocationCreatedEvent',
        LOCATION_UPDATED: 'LocationUpdatedEvent',
        LOCATION_GROUP_CREATED: 'LocationGroupCreatedEvent',
        LOCATION_GROUP_UPDATED: 'LocationGroupUpdatedEvent',
        LOCATION_GROUP_DELETED: 'LocationGroupDeletedEvent',
        ADDRESS_GROUP_CREATED: 'AddressGroupCreatedEvent',
        ADDRESS_GROUP_UPDATED: 'AddressGroupUpdatedEvent',
        ADDRESS_GROUP_DELETED: 'AddressGroupDeletedEvent',
      };
      expect((schemas['LocationEvent'] as { properties: Record<string, unknown> }).properties['event']).toEqual({
        oneOf: Object.values(changeEvents).map((name) => ({ $ref: ref(name) })),
        discriminator: {
          propertyName: 'type',
          mapping: Object.fromEntries(Object.entries(changeEvents).map(([type, name]) => [type, ref(name)])),
        },
      });
      expect(schemas['ChangeFeedPage']).toMatchObject({
        properties: { changes: { items: { $ref: ref('LocationEvent') } } },
      });
      // A union of unnamed objects is one a generator cannot name its types for: name its options (variantOf).
      const unnamed = nodesOf(doc).filter((node) =>
        [node['oneOf'], node['anyOf']].some(
          (options) => Array.isArray(options) && options.some((option) => isRecord(option) && !('$ref' in option)),
        ),
      );
      expect(unnamed.filter((node) => JSON.stringify(node).includes('"enum":["'))).toEqual([]);
    });

    it('has no construct a generator rejects: no `not`, no `null` type alone, date-times with their format', () => {
      expect(nodesOf(doc).filter((node) => 'not' in node || node['type'] === 'null')).toEqual([]);
      const dateTimes = nodesOf(doc).filter(
        (node) => typeof node['pattern'] === 'string' && node['pattern'].includes('T([01]'),
      );
      expect(dateTimes.length).toBeGreaterThan(10);
      expect(dateTimes.filter((node) => node['format'] !== 'date-time')).toEqual([]);
      const dates = nodesOf(doc).filter(
        (node) => node['pattern'] === '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$',
      );
      expect(dates.length).toBeGreaterThan(0);
      expect(dates.filter((node) => node['format'] !== 'date')).toEqual([]);
    });

    it('tags the webhooks apart from the operations, and answers them with ranges', () => {
      const operationTags = Object.values(doc.paths ?? {}).flatMap((item) =>
        Object.values(item as Record<string, { tags?: string[] }>).flatMap((operation) => operation.tags ?? []),
      );
      expect(operationTags).not.toContain(WEBHOOK_TAG);
      for (const webhook of Object.values(doc.webhooks ?? {})) {
        const post = (webhook as { post: { tags: string[]; responses: Record<string, unknown> } }).post;
        expect(post.tags).toEqual([WEBHOOK_TAG]);
        expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['200', '4XX', '5XX']));
        expect(Object.keys(post.responses)).not.toContain('500');
      }
      expect(doc.tags?.map((tag) => tag.name)).toContain(WEBHOOK_TAG);
    });

    it('describes the export files: the JSON file, and the CSV columns in the order the export writes them', () => {
      const csv = schemas['CsvExportRecord'] as { properties: object; required: string[]; description: string };
      expect(Object.keys(csv.properties)).toEqual(LOCATION_CSV_COLUMNS);
      expect(csv.required).toEqual([
        'id',
        'createdAt',
        'updatedAt',
        'geography.country',
        'geography.region',
        'geography.locality',
        'geography.postalCode',
      ]);
      expect(csv.description).toContain(LOCATION_CSV_COLUMNS.join(', '));
      expect(schemas['JsonExportFile']).toMatchObject({ required: ['exportTimestamp', 'totalCount', 'locations'] });
    });

    it('says what a type cannot: a tombstone is the only item with deletedAt, and how to use a change version', () => {
      const descriptionsOf = (property: string) =>
        nodesOf(doc).flatMap((node) => {
          const properties = node['properties'];
          const described = isRecord(properties) ? properties[property] : undefined;
          return isRecord(described) && typeof described['description'] === 'string' ? [described['description']] : [];
        });
      expect(descriptionsOf('deletedAt')).toContain(
        'Only on a tombstone: when the group was deleted (UTC). Lists by modifiedSince and exports hold them.',
      );
      expect(descriptionsOf('version')).toContain(
        "The resource's version after this event (1 at its creation, one more per change), also in X-Event-Sequence: " +
          'keep the highest, discard an older or repeated one.',
      );
    });
  });

  it("leaves the operator's and the administrators' operations out of the RSP's document, and nothing else", () => {
    const rsp = openApiDocument({ serverUrl: 'https://api.example.net', audience: 'rsp' });
    const operationsOf = (doc: OpenApiDocument) =>
      Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
        Object.keys(item as object).map((method) => `${method.toUpperCase()} ${path}`),
      );
    const left = operationsOf(document).filter((operation) => !operationsOf(rsp).includes(operation));
    expect(left.length).toBeGreaterThan(20);
    expect(left.filter((operation) => !/^\w+ \/(operator|admin)\//.test(operation))).toEqual([]);
    expect(operationsOf(rsp)).toEqual(expect.arrayContaining(['GET /locations/{id}', 'POST /locations/exports']));
    expect(Object.keys(rsp.webhooks ?? {})).toEqual(Object.keys(document.webhooks ?? {}));
    const scopes = (rsp.components?.securitySchemes?.['oauth2'] as { flows: { clientCredentials: { scopes: object } } })
      .flows.clientCredentials.scopes;
    expect(Object.keys(scopes)).toEqual(['locations:read']);
    expect(rsp.tags?.map((tag) => tag.name)).not.toContain('Operator');
  });

  it('has each operation once, with an id, and a scope unless it is one of the public ones', () => {
    const ids = API_OPERATIONS.map((operation) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(API_OPERATIONS.map((operation) => `${operation.method} ${operation.path}`)).size).toBe(ids.length);
    const publicPaths = API_OPERATIONS.filter((operation) => operation.scope === null).map(
      (operation) => operation.path,
    );
    expect(publicPaths.sort()).toEqual([
      '/.well-known/jwks.json',
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
      '/docs',
      '/oauth/token',
      '/openapi-rsp.json',
      '/openapi.json',
    ]);
  });

  it('shows examples that the schemas of their JSON bodies accept', () => {
    const bodies: [string, Body][] = API_OPERATIONS.flatMap((operation) => {
      const name = `${operation.method} ${operation.path}`;
      const replies = Object.entries(operation.responses).flatMap(([status, reply]) =>
        reply.body === undefined ? [] : [[`${name} ${status}`, reply.body] as [string, Body]],
      );
      const requests = requestBodies(operation).map(
        (body) => [`${name} request ${mediaTypeOf(body)}`, body] as [string, Body],
      );
      return [...requests, ...replies];
    });
    const json = bodies.filter(([, body]) => mediaTypeOf(body).endsWith('json'));
    expect(json.length).toBeGreaterThan(50);
    const refused = json.filter(([, body]) => !validate(body.schema, body.example).ok).map(([name]) => name);
    expect(refused).toEqual([]);
  });

  describe('POST /operator/imports', () => {
    /** The request body as the document states it: one schema and example per media type. */
    const requestContent = () => {
      const requestBody = document.paths?.['/operator/imports']?.post?.requestBody;
      return (requestBody as { content: Record<string, { schema: unknown; example: unknown }> }).content;
    };
    const exampleOf = (mediaType: string): string => {
      const example = requestContent()[mediaType]?.example;
      if (typeof example !== 'string') throw new Error(`no text example for ${mediaType}`);
      return example;
    };

    it('declares exactly the media types the import accepts (location-command reads the same IMPORT_MEDIA_TYPES)', () => {
      // location-command's controller and body parsers take their list from IMPORT_MEDIA_TYPES of @lx/contracts.
      expect(Object.keys(requestContent()).sort()).toEqual(Object.values(IMPORT_MEDIA_TYPES).sort());
      for (const media of Object.values(requestContent())) {
        expect(media.schema).toMatchObject({ type: 'string' });
        expect(typeof media.example).toBe('string');
      }
    });

    it('shows an NDJSON example whose every line is a Location', () => {
      const lines = exampleOf(IMPORT_MEDIA_TYPES.ndjson)
        .split('\n')
        .filter((line) => line !== '');
      expect(lines).toHaveLength(1);
      expect(lines.map((line) => validate(locationSchema, JSON.parse(line)).ok)).toEqual([true]);
    });

    it('shows a CSV example the import reads: the header it checks, then the example location', () => {
      const [header, ...records] = parse(exampleOf(IMPORT_MEDIA_TYPES.csv));
      expect(header).toEqual(LOCATION_CSV_COLUMNS);
      expect(csvHeaderIssues(header!)).toEqual([]);
      expect(records).toHaveLength(1);
      const row = Object.fromEntries(header!.map((name, index) => [name, records[0]![index]]));
      const { id, input, issues } = csvRowToLocationInput(row);
      expect({ id, input, issues }).toEqual({ id: EXAMPLE_IDS.location, input: exampleLocationInput, issues: [] });
      expect(validate(locationInputSchema, input).ok).toBe(true);
      expect(row['createdAt']).toBe(exampleLocation.createdAt);
    });
  });
});

const ref = (name: string) => `#/components/schemas/${name}`;

/** Every object in a document (schemas among them), examples left out. */
function nodesOf(node: unknown): Record<string, unknown>[] {
  if (Array.isArray(node)) return node.flatMap(nodesOf);
  if (!isRecord(node)) return [];
  const children = Object.entries(node)
    .filter(([key]) => key !== 'example' && key !== 'examples')
    .flatMap(([, value]) => nodesOf(value));
  return [node, ...children];
}

/** The names of the schemas a part of a document refers to. */
const refsIn = (node: unknown): string[] =>
  nodesOf(node)
    .map((item) => item['$ref'])
    .filter((value): value is string => typeof value === 'string' && value.startsWith('#/components/schemas/'))
    .map((value) => value.slice('#/components/schemas/'.length));
