import { validate } from '../validation';
import { openApiDocument } from './document';
import { API_OPERATIONS, type Body } from './operations';

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
      const request = operation.request?.body;
      return request === undefined ? replies : [[`${name} request`, request] as [string, Body], ...replies];
    });
    const json = bodies.filter(([, body]) => (body.mediaType ?? 'application/json').endsWith('json'));
    expect(json.length).toBeGreaterThan(50);
    const refused = json.filter(([, body]) => !validate(body.schema, body.example).ok).map(([name]) => name);
    expect(refused).toEqual([]);
  });
});
