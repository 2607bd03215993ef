import { OAuthError } from './oauth.error';
import { parseTokenRequest, type RawTokenRequest } from './token-request';

const FORM = 'application/x-www-form-urlencoded';
const ID = '3f6c2a9e-8d1b-4c1e-9a57-0b4b6a1d2c3e';
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

const request = (overrides: Partial<RawTokenRequest> = {}): RawTokenRequest => ({
  contentType: FORM,
  authorization: undefined,
  body: { grant_type: 'client_credentials', client_id: ID, client_secret: 's3cret' },
  ...overrides,
});

function refusal(raw: RawTokenRequest): { error: string; description: string; status: number } {
  try {
    parseTokenRequest(raw);
  } catch (error) {
    if (error instanceof OAuthError)
      return { error: error.error, description: error.description, status: error.status };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('parseTokenRequest', () => {
  it('given body credentials, when parsed, then reads them as client_secret_post', () => {
    expect(parseTokenRequest(request())).toEqual({
      clientId: ID,
      clientSecret: 's3cret',
      method: 'client_secret_post',
    });
  });

  it('given Basic credentials with a charset parameter on the content type, when parsed, then reads them as client_secret_basic', () => {
    const raw = request({
      contentType: 'Application/X-WWW-Form-Urlencoded; charset=UTF-8',
      authorization: basic(ID, 'a%3Ab+c'),
      body: { grant_type: 'client_credentials', scope: 'locations:read' },
    });
    expect(parseTokenRequest(raw)).toEqual({
      clientId: ID,
      clientSecret: 'a:b c',
      method: 'client_secret_basic',
      scopes: ['locations:read'],
    });
  });

  it('given Basic credentials and the same client_id in the body, when parsed, then accepts them', () => {
    const raw = request({ authorization: basic(ID, 'x'), body: { grant_type: 'client_credentials', client_id: ID } });
    expect(parseTokenRequest(raw).method).toBe('client_secret_basic');
  });

  it('given a scope with repeated names, when parsed, then keeps each once', () => {
    const raw = request({ body: { ...(request().body as object), scope: 'locations:read locations:read' } });
    expect(parseTokenRequest(raw).scopes).toEqual(['locations:read']);
  });

  it('given an empty scope, when parsed, then asks for every scope the client holds', () => {
    const raw = request({ body: { ...(request().body as object), scope: '  ' } });
    expect(parseTokenRequest(raw)).not.toHaveProperty('scopes');
  });

  it.each<[string, Partial<RawTokenRequest>, string, number]>([
    ['no content type', { contentType: undefined }, 'invalid_request', 400],
    ['a JSON content type', { contentType: 'application/json' }, 'invalid_request', 400],
    ['a body that is not a form', { body: 'grant_type=client_credentials' }, 'invalid_request', 400],
    [
      'a repeated parameter',
      { body: { grant_type: ['client_credentials', 'client_credentials'] } },
      'invalid_request',
      400,
    ],
    ['no grant_type', { body: { client_id: ID, client_secret: 'x' } }, 'invalid_request', 400],
    [
      'the password grant',
      { body: { grant_type: 'password', client_id: ID, client_secret: 'x' } },
      'unsupported_grant_type',
      400,
    ],
    ['no credentials', { body: { grant_type: 'client_credentials' } }, 'invalid_client', 401],
    ['client_id without secret', { body: { grant_type: 'client_credentials', client_id: ID } }, 'invalid_client', 401],
    [
      'an empty secret',
      { body: { grant_type: 'client_credentials', client_id: ID, client_secret: '' } },
      'invalid_client',
      401,
    ],
    ['a Bearer header', { authorization: 'Bearer abc' }, 'invalid_client', 401],
    [
      'Basic without a colon',
      { authorization: `Basic ${Buffer.from('abc').toString('base64')}` },
      'invalid_client',
      401,
    ],
    [
      'Basic with a bad escape',
      { authorization: basic('%zz', 'x'), body: { grant_type: 'client_credentials' } },
      'invalid_client',
      401,
    ],
    ['Basic plus client_secret in the body', { authorization: basic(ID, 'x') }, 'invalid_request', 400],
    [
      'Basic plus a different client_id in the body',
      { authorization: basic(ID, 'x'), body: { grant_type: 'client_credentials', client_id: 'other' } },
      'invalid_request',
      400,
    ],
    [
      'a scope with a double quote',
      { body: { grant_type: 'client_credentials', client_id: ID, client_secret: 'x', scope: 'a"b' } },
      'invalid_scope',
      400,
    ],
  ])('given %s, when parsed, then refuses with %s', (_, overrides, error, status) => {
    expect(refusal(request(overrides))).toMatchObject({ error, status });
  });

  it('given any failed client authentication, when refused, then the description is always the same', () => {
    const descriptions = new Set(
      [{ authorization: 'Bearer abc' }, { body: { grant_type: 'client_credentials' } }].map(
        (overrides) => refusal(request(overrides)).description,
      ),
    );
    expect([...descriptions]).toEqual(['Client authentication failed']);
  });
});
