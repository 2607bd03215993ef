import { issuesOf } from '../testing/fixtures';
import {
  clientListSchema,
  clientSecretsSchema,
  clientViewSchema,
  registerClientRequestSchema,
  registeredClientSchema,
  updateClientRequestSchema,
} from './clients';
import { oauthErrorBodySchema, tokenResponseSchema } from './oauth';
import { ALL_SCOPES, isScope, REGISTRABLE_SCOPES } from './scopes';

describe('client admin contracts', () => {
  it('given an RSP registration, when validated, then it is accepted', () => {
    expect(
      issuesOf(registerClientRequestSchema, {
        name: 'Acme',
        kind: 'RSP',
        scopes: ['locations:read'],
        webhookUrl: 'https://hooks.acme.example/lx',
      }),
    ).toEqual([]);
  });

  it('given a webhook URL with credentials or a fragment, when validated, then it is refused', () => {
    for (const webhookUrl of [
      'https://u:p@hooks.example',
      'https://u@hooks.example',
      'https://:p@hooks.example',
      'https://hooks.example/#x',
    ]) {
      expect(issuesOf(registerClientRequestSchema, { name: 'Acme', kind: 'RSP', webhookUrl })).toEqual([
        { field: 'webhookUrl', rule: 'custom', message: expect.stringContaining('credentials or a fragment') },
      ]);
    }
  });

  it('given the SERVICE kind, when registering, then it is refused: only auth creates that client, from configuration', () => {
    expect(issuesOf(registerClientRequestSchema, { name: 'Mallory', kind: 'SERVICE' })).toEqual([
      { field: 'kind', rule: 'enum', message: 'kind must be one of RSP, OPERATOR, ADMIN' },
    ]);
  });

  it('given several scopes, when registering, then they are accepted; given none, then at least one is asked for', () => {
    const rsp = { name: 'Acme', kind: 'RSP' };
    expect(issuesOf(registerClientRequestSchema, { ...rsp, scopes: ['locations:read', 'locations:write'] })).toEqual(
      [],
    );
    expect(issuesOf(registerClientRequestSchema, { ...rsp, scopes: [] })).toEqual([
      { field: 'scopes', rule: 'min', message: 'scopes must contain at least 1 item' },
    ]);
  });

  it('given an empty update, when validated, then at least one field is asked for', () => {
    expect(issuesOf(updateClientRequestSchema, {})).toEqual([
      { field: '', rule: 'custom', message: 'value is invalid: must change at least one of name, scopes, webhookUrl' },
    ]);
    expect(issuesOf(updateClientRequestSchema, { webhookUrl: null })).toEqual([]);
  });

  describe('the replies of the client admin API', () => {
    const view = {
      clientId: '3f6c2a9e-8d1b-4c1e-9a57-0b4b6a1d2c3e',
      name: 'Acme',
      kind: 'RSP',
      scopes: ['locations:read'],
      enabled: true,
      webhookUrl: 'https://hooks.acme.example/lx',
      createdAt: '2024-01-15T10:00:00Z',
      updatedAt: '2024-01-15T10:00:00Z',
    };
    const secrets = { clientId: view.clientId, clientSecret: 's3cr3t', webhookSecret: 'whsec_x' };

    it('given a client, its secrets, both together and a page of clients, when validated, then each is accepted', () => {
      expect(issuesOf(clientViewSchema, view)).toEqual([]);
      expect(issuesOf(clientSecretsSchema, secrets)).toEqual([]);
      expect(issuesOf(registeredClientSchema, { ...view, ...secrets })).toEqual([]);
      expect(issuesOf(clientListSchema, { clients: [view], pagination: { limit: 50, offset: 0, total: 1 } })).toEqual(
        [],
      );
    });

    it('given a client view with a secret, when validated, then the secret is refused (a view never shows one)', () => {
      expect(issuesOf(clientViewSchema, { ...view, clientSecret: 's3cr3t' })).toEqual([
        { field: 'clientSecret', rule: 'unknownField', message: 'unknown field "clientSecret"' },
      ]);
    });

    it('given secrets without the client secret, when validated, then it is required', () => {
      expect(issuesOf(clientSecretsSchema, { clientId: view.clientId })).toEqual([
        { field: 'clientSecret', rule: 'required', message: 'clientSecret is required' },
      ]);
    });

    it('given a page without pagination, when validated, then it is required', () => {
      expect(issuesOf(clientListSchema, { clients: [view] })).toEqual([
        { field: 'pagination', rule: 'required', message: 'pagination is required' },
      ]);
    });
  });

  it('given the token reply and an OAuth error, when validated, then they follow RFC 6749', () => {
    expect(
      issuesOf(tokenResponseSchema, {
        access_token: 'a.b.c',
        token_type: 'Bearer',
        expires_in: 3600,
        scope: 'locations:read',
      }),
    ).toEqual([]);
    expect(issuesOf(oauthErrorBodySchema, { error: 'invalid_client', error_description: 'x' })).toEqual([]);
    expect(issuesOf(oauthErrorBodySchema, { error: 'UNAUTHORIZED' })).toHaveLength(1);
  });

  it('given scope names, when checked, then only the catalog ones are scopes', () => {
    expect(isScope('locations:read')).toBe(true);
    expect(isScope('everything')).toBe(false);
  });

  it('given the catalog, when the registrable scopes are taken, then every scope but locations:internal, in order', () => {
    expect(ALL_SCOPES).toContain('locations:internal');
    expect(REGISTRABLE_SCOPES).toEqual(['locations:read', 'locations:write', 'auth:admin', 'webhooks:admin']);
  });
});
