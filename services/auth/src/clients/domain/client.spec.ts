import {
  changeClient,
  type Client,
  clientShapeIssues,
  narrowsScopes,
  normalizeScopes,
  REVOCATION_MARGIN_SECONDS,
  tokenIssuedAt,
  tokenRevocationAt,
  toClientView,
} from './client';

describe('client rules', () => {
  it('given an RSP with the read scope and a webhook, when checked, then nothing is wrong', () => {
    expect(clientShapeIssues('RSP', ['locations:read'], 'https://hooks.example')).toEqual([]);
  });

  it('given an RSP asking for write and admin scopes, when checked, then the refused scopes are named', () => {
    expect(clientShapeIssues('RSP', ['locations:read', 'locations:write', 'auth:admin'], null)).toEqual([
      {
        field: 'scopes',
        rule: 'scopesOfKind',
        message: 'scopes of RSP clients must be among locations:read; not allowed: locations:write, auth:admin',
      },
    ]);
  });

  it('given the internal scope for any kind but SERVICE, when checked, then it is refused; SERVICE holds only it', () => {
    for (const kind of ['RSP', 'OPERATOR', 'ADMIN'] as const) {
      expect(clientShapeIssues(kind, ['locations:internal'], null)).toEqual([
        expect.objectContaining({
          field: 'scopes',
          message: expect.stringContaining('not allowed: locations:internal'),
        }),
      ]);
    }
    expect(clientShapeIssues('SERVICE', ['locations:read', 'locations:internal'], null)).toEqual([]);
    expect(clientShapeIssues('SERVICE', ['locations:write'], null)).toEqual([
      expect.objectContaining({
        message:
          'scopes of SERVICE clients must be among locations:read, locations:internal; not allowed: locations:write',
      }),
    ]);
  });

  it('given an operator or an admin with a webhook, when checked, then the webhook is refused', () => {
    for (const kind of ['OPERATOR', 'ADMIN'] as const) {
      expect(clientShapeIssues(kind, [], 'https://hooks.example')).toEqual([
        { field: 'webhookUrl', rule: 'webhookOfKind', message: `${kind} clients cannot have a webhookUrl` },
      ]);
    }
  });

  it('given scopes out of order and repeated, when normalized, then each once in the kind order', () => {
    expect(normalizeScopes('OPERATOR', ['locations:write', 'locations:read', 'locations:write'])).toEqual([
      'locations:read',
      'locations:write',
    ]);
  });

  const client: Client = {
    id: '3f6c2a9e-8d1b-4c1e-9a57-0b4b6a1d2c3e',
    name: 'Acme',
    kind: 'RSP',
    scopes: ['locations:read'],
    enabled: true,
    version: 1,
    webhookUrl: null,
    secretHash: 'scrypt$...',
    webhookSecretEncrypted: Buffer.from('sealed'),
    tokensIssuedBefore: null,
    createdAt: new Date('2025-01-01T00:00:00Z'),
    updatedAt: new Date('2025-01-02T00:00:00Z'),
  };

  it('given a client at version 1, when changed twice, then it is at version 3, updated at the last change', () => {
    const later = new Date('2025-02-01T00:00:00Z');
    const renamed = changeClient(client, { name: 'Acme Fiber' }, new Date('2025-01-15T00:00:00Z'));
    const disabled = changeClient(renamed, { enabled: false }, later);
    expect(disabled).toEqual({ ...client, name: 'Acme Fiber', enabled: false, version: 3, updatedAt: later });
    expect(client.version).toBe(1);
  });

  it('given a client, when shown, then no secret material is in the view', () => {
    expect(toClientView(client)).toEqual({
      clientId: client.id,
      name: 'Acme',
      kind: 'RSP',
      scopes: ['locations:read'],
      enabled: true,
      createdAt: '2025-01-01T00:00:00.000Z',
      updatedAt: '2025-01-02T00:00:00.000Z',
    });
  });
});

describe('token revocation rules', () => {
  const at = (iso: string) => new Date(iso);

  it('cuts off two seconds after the next whole second, so every token issued up to now (iat rounded down) falls before it', () => {
    expect(REVOCATION_MARGIN_SECONDS).toBe(2);
    expect(tokenRevocationAt(at('2025-01-01T00:00:10.250Z'))).toEqual(at('2025-01-01T00:00:13.000Z'));
    expect(tokenRevocationAt(at('2025-01-01T00:00:10.000Z'))).toEqual(at('2025-01-01T00:00:13.000Z'));
    expect(tokenRevocationAt(at('2025-01-01T00:00:10.999Z'))).toEqual(at('2025-01-01T00:00:13.000Z'));
  });

  it('dates a token issued before the cut-off at the cut-off, and any other token now', () => {
    const cutOff = at('2025-01-01T00:00:13.000Z');
    expect(tokenIssuedAt({ tokensIssuedBefore: cutOff }, at('2025-01-01T00:00:10.600Z'))).toEqual(cutOff);
    expect(tokenIssuedAt({ tokensIssuedBefore: cutOff }, at('2025-01-01T00:00:13.000Z'))).toEqual(cutOff);
    const later = at('2025-01-01T00:00:13.400Z');
    expect(tokenIssuedAt({ tokensIssuedBefore: cutOff }, later)).toEqual(later);
    expect(tokenIssuedAt({ tokensIssuedBefore: null }, later)).toEqual(later);
  });

  it('narrows scopes only when one is taken away', () => {
    expect(narrowsScopes(['locations:read', 'locations:write'], ['locations:read'])).toBe(true);
    expect(narrowsScopes(['locations:read'], ['locations:read', 'locations:write'])).toBe(false);
    expect(narrowsScopes(['locations:read'], ['locations:read'])).toBe(false);
    expect(narrowsScopes(['locations:read'], [])).toBe(true);
  });
});
