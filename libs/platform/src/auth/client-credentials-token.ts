import { CLIENT_CREDENTIALS_GRANT } from '@lx/contracts';

/** What a client sends to the token endpoint for the client-credentials grant. */
export interface ClientCredentialsRequest {
  /** The token endpoint, e.g. http://127.0.0.1:3001/oauth/token. */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes to ask for; without it the endpoint grants the client's default scopes. */
  scope?: string;
}

/** Characters of a reply that is not JSON (a proxy's error page) quoted in the message. */
const QUOTED_TEXT = 200;

/** The token endpoint did not issue a token: its status and its reply (parsed JSON, else the text). */
export class TokenRequestError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const reply = typeof body === 'string' ? body.slice(0, QUOTED_TEXT) : JSON.stringify(body);
    super(`the token endpoint answered ${status}: ${reply}`);
  }
}

/**
 * An access token by the OAuth 2.0 client-credentials grant (RFC 6749 section 4.4): a form POST with the client's
 * id and secret in the body (section 2.3.1), answered with JSON (section 5.1). Throws `TokenRequestError` for an error
 * reply (section 5.2) or any reply without an `access_token`.
 */
export async function clientCredentialsToken(request: ClientCredentialsRequest): Promise<string> {
  const form = new URLSearchParams({
    grant_type: CLIENT_CREDENTIALS_GRANT,
    client_id: request.clientId,
    client_secret: request.clientSecret,
  });
  if (request.scope !== undefined) form.set('scope', request.scope);
  const response = await fetch(request.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: form,
  });
  const text = await response.text();
  const body = parseJson(text);
  const token =
    typeof body === 'object' && body !== null ? (body as { access_token?: unknown }).access_token : undefined;
  if (!response.ok || typeof token !== 'string') throw new TokenRequestError(response.status, body ?? text);
  return token;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
