import { issuesOf } from '../testing/fixtures';
import { clientDataSchema, webhookEndpointDisabledDataSchema } from './payloads';

describe('clientDataSchema', () => {
  const client = {
    clientId: 'rsp-acme',
    name: 'Acme Fiber',
    kind: 'RSP',
    scopes: ['locations:read'],
    enabled: true,
    webhookUrl: 'https://hooks.acme.example/lx',
  };

  // A sealed value is version | IV | tag | ciphertext, 29 bytes and more: its base64 ends in '=', '==' or nothing.
  it.each([
    ['no padding', 30, /[^=]$/],
    ['the padding ==', 31, /[^=]==$/],
    ['the padding =', 32, /[^=]=$/],
  ])('given a sealed webhook secret in base64 with %s, when validated, then it is accepted', (_case, bytes, ending) => {
    const webhookSecretSealed = Buffer.alloc(bytes, 0xa5).toString('base64');
    expect(webhookSecretSealed).toMatch(ending);
    expect(issuesOf(clientDataSchema, { ...client, webhookSecretSealed })).toEqual([]);
  });

  it.each([
    ['one character short of a quantum', 'AAAAAAA'],
    ['padding after a single character', 'AAAAA==='],
    ['a padding character inside', 'AA=AAAAA'],
    ['only padding', '===='],
  ])(
    'given a sealed webhook secret with %s, when validated, then its format is refused',
    (_case, webhookSecretSealed) => {
      expect(issuesOf(clientDataSchema, { ...client, webhookSecretSealed })).toEqual([
        { field: 'webhookSecretSealed', rule: 'format', message: 'webhookSecretSealed has an invalid format' },
      ]);
    },
  );
});

describe('webhookEndpointDisabledDataSchema', () => {
  const disabled = {
    clientId: 'rsp-acme',
    url: 'https://hooks.acme.example/lx/locations/events',
    reason: 'HTTP 410 Gone at 2026-11-24T05:00:00.000Z',
    disabledAt: '2026-11-24T05:00:00.000Z',
  };

  it('given the endpoint, the URL that answered 410, the reason and the time, when validated, then it is accepted', () => {
    expect(issuesOf(webhookEndpointDisabledDataSchema, disabled)).toEqual([]);
  });

  it.each([
    ['an empty client id', { clientId: '' }, 'clientId'],
    ['a URL that is not http(s)', { url: 'ftp://hooks.acme.example/lx' }, 'url'],
    ['an empty reason', { reason: '' }, 'reason'],
    ['a time that is not UTC', { disabledAt: '2026-11-24T06:00:00+01:00' }, 'disabledAt'],
    ['a field it does not define', { secret: 'whsec_x' }, 'secret'],
  ])('given %s, when validated, then that field is refused', (_case, change, field) => {
    expect(issuesOf(webhookEndpointDisabledDataSchema, { ...disabled, ...change }).map((issue) => issue.field)).toEqual(
      [field],
    );
  });

  it.each(['clientId', 'url', 'reason', 'disabledAt'])('given no %s, when validated, then it is required', (field) => {
    const without: Record<string, unknown> = { ...disabled };
    delete without[field];
    expect(issuesOf(webhookEndpointDisabledDataSchema, without).map((issue) => issue.field)).toEqual([field]);
  });
});
