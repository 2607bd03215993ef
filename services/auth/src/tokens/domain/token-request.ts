import { CLIENT_CREDENTIALS_GRANT } from '@lx/contracts';
import { clientAuthenticationFailed, OAuthError } from './oauth.error';

/** How the client authenticated (RFC 6749 section 2.3.1): HTTP Basic, or client_id / client_secret in the body. */
export type ClientAuthenticationMethod = 'client_secret_basic' | 'client_secret_post';

export interface TokenRequest {
  clientId: string;
  clientSecret: string;
  method: ClientAuthenticationMethod;
  /** Requested scopes; undefined asks for every scope the client holds. */
  scopes?: string[];
}

export interface RawTokenRequest {
  contentType: string | undefined;
  authorization: string | undefined;
  /** The parsed form: parameter name to value, or to the values of a repeated parameter. */
  body: unknown;
}

const FORM = 'application/x-www-form-urlencoded';
/** RFC 6749 appendix A.4: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

const invalidRequest = (description: string) => new OAuthError('invalid_request', description);

function formOf(raw: RawTokenRequest): Record<string, string> {
  const mediaType = raw.contentType?.split(';', 1)[0]?.trim().toLowerCase();
  if (mediaType !== FORM) throw invalidRequest(`The token request must have Content-Type ${FORM}`);
  const form: Record<string, string> = {};
  if (raw.body === undefined || raw.body === null) return form;
  if (typeof raw.body !== 'object') throw invalidRequest('The token request body is not a form');
  for (const [name, value] of Object.entries(raw.body)) {
    // RFC 6749 section 3.2: parameters must not be included more than once.
    if (Array.isArray(value)) throw invalidRequest(`The parameter ${name} is repeated`);
    if (typeof value === 'string') form[name] = value;
  }
  return form;
}

/** RFC 6749 section 2.3.1: Basic credentials whose id and secret are form-urlencoded before base64. */
function basicCredentials(authorization: string): { clientId: string; clientSecret: string } {
  const match = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(authorization);
  const decoded = match?.[1] === undefined ? '' : Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) throw clientAuthenticationFailed();
  try {
    const formDecode = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
    return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw clientAuthenticationFailed();
  }
}

function credentialsOf(
  authorization: string | undefined,
  form: Record<string, string>,
): Pick<TokenRequest, 'clientId' | 'clientSecret' | 'method'> {
  const { client_id: bodyId, client_secret: bodySecret } = form;
  if (authorization !== undefined && authorization.trim() !== '') {
    if (!/^Basic /i.test(authorization)) throw clientAuthenticationFailed();
    const basic = basicCredentials(authorization);
    // Section 2.3: a client must not use more than one authentication method in a request.
    if (bodySecret !== undefined) throw invalidRequest('Use either HTTP Basic or client_secret in the body, not both');
    if (bodyId !== undefined && bodyId !== basic.clientId) {
      throw invalidRequest('client_id in the body differs from the HTTP Basic client id');
    }
    return { ...basic, method: 'client_secret_basic' };
  }
  if (!bodyId || !bodySecret) throw clientAuthenticationFailed();
  return { clientId: bodyId, clientSecret: bodySecret, method: 'client_secret_post' };
}

function scopesOf(scope: string | undefined): string[] | undefined {
  if (scope === undefined || scope.trim() === '') return undefined;
  const scopes = scope.split(' ');
  if (!scopes.every((token) => SCOPE_TOKEN.test(token))) {
    throw new OAuthError('invalid_scope', 'scope must be scope names separated by single spaces');
  }
  return [...new Set(scopes)];
}

/**
 * Reads a client-credentials token request (RFC 6749 section 4.4.2) or says what is wrong with it, in this order:
 * content type, repeated parameters, grant type, client credentials, scope syntax. Whether the credentials and
 * scopes are right is for the use case to decide.
 */
export function parseTokenRequest(raw: RawTokenRequest): TokenRequest {
  const form = formOf(raw);
  const grantType = form.grant_type;
  if (grantType === undefined || grantType === '') throw invalidRequest('grant_type is missing');
  if (grantType !== CLIENT_CREDENTIALS_GRANT) {
    throw new OAuthError('unsupported_grant_type', `Only the ${CLIENT_CREDENTIALS_GRANT} grant is supported`);
  }
  const credentials = credentialsOf(raw.authorization, form);
  const scopes = scopesOf(form.scope);
  return { ...credentials, ...(scopes === undefined ? {} : { scopes }) };
}
