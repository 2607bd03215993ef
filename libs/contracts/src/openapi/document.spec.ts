import { parse } from 'csv-parse/sync';
import { IMPORT_MEDIA_TYPES } from '../resources/imports';
import { locationInputSchema, locationSchema } from '../resources/location';
import { csvHeaderIssues, csvRowToLocationInput, LOCATION_CSV_COLUMNS } from '../resources/location-csv';
import { validate } from '../validation';
import { openApiDocument } from './document';
import { EXAMPLE_IDS, exampleLocation, exampleLocationInput } from './examples';
import { API_OPERATIONS, type Body, mediaTypeOf, requestBodies } from './operations';

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
