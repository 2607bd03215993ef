import { issuesOf } from '../testing/fixtures';
import { registerClientRequestSchema, updateClientRequestSchema } from './clients';
import { oauthErrorBodySchema, tokenResponseSchema } from './oauth';
import { isScope } from './scopes';

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
    for (const webhookUrl of ['https://u:p@hooks.example', 'https://hooks.example/#x']) {
      expect(issuesOf(registerClientRequestSchema, { name: 'Acme', kind: 'RSP', webhookUrl })).toEqual([
        { field: 'webhookUrl', rule: 'custom', message: expect.stringContaining('credentials or a fragment') },
      ]);
    }
  });

  it('given an empty update, when validated, then at least one field is asked for', () => {
    expect(issuesOf(updateClientRequestSchema, {})).toHaveLength(1);
    expect(issuesOf(updateClientRequestSchema, { webhookUrl: null })).toEqual([]);
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
});
