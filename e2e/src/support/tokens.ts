import { randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import * as oidc from 'openid-client';
import { ApiClient, type HttpReply } from './api';

/** A token reply of openid-client's client credentials grant. */
export type LibraryTokens = oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers;

/**
 * An RSP that gets its tokens as an integrator following the OAuth libraries' documentation would: openid-client's
 * discovery at the base URL (nothing else configured), then its client credentials grant at the token endpoint the
 * metadata names. Every request goes through the ingress with the library's token, fetched again shortly before it
 * expires; `lastGrant` keeps the library's last token reply for assertions.
 */
export class OAuthLibraryClient extends ApiClient {
  lastGrant: LibraryTokens | undefined;
  private configuration: Promise<oidc.Configuration> | undefined;
  private tokens: Promise<{ accessToken: string; expiresAt: number }> | undefined;

  constructor(
    baseUrl: string,
    clientId: string,
    private readonly secret: string,
    private readonly requestedScope: string,
  ) {
    super(baseUrl, clientId, secret, requestedScope);
  }

  /** The authorization server as openid-client discovered it (once). */
  discovered(): Promise<oidc.Configuration> {
    const issuer = new URL(this.baseUrl);
    this.configuration ??= oidc.discovery(issuer, this.clientId, this.secret, undefined, {
      execute: issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : [],
    });
    return this.configuration;
  }

  override async accessToken(): Promise<string> {
    const current = this.tokens === undefined ? undefined : await this.tokens.catch(() => undefined);
    if (current === undefined || current.expiresAt - Date.now() < 30_000) {
      this.tokens = this.grant().then((tokens) => ({
        accessToken: tokens.access_token,
        expiresAt: Date.now() + (tokens.expiresIn() ?? 0) * 1000,
      }));
    }
    return (await this.tokens!).accessToken;
  }

  private async grant(): Promise<LibraryTokens> {
    this.lastGrant = await oidc.clientCredentialsGrant(await this.discovered(), { scope: this.requestedScope });
    return this.lastGrant;
  }
}

/**
 * Sends one request through the ingress with exactly the Authorization header given (none when `undefined`), for
 * the tests of refusals: a JSON body unless `request.contentType` says otherwise (a string body is sent as is).
 */
export async function sendWith(
  baseUrl: string,
  authorization: string | undefined,
  request: { method: string; path: string; body?: unknown; contentType?: string },
): Promise<HttpReply> {
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  let body: string | undefined;
  if (request.body !== undefined) {
    headers['content-type'] = request.contentType ?? 'application/json';
    body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
  }
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers,
    body,
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  const isJson = /^application\/(.+\+)?json/.test(response.headers.get('content-type') ?? '');
  return { status: response.status, headers: response.headers, text, body: isJson && text ? JSON.parse(text) : text };
}

/**
 * A token signed by a key the API does not trust: the claims of the genuine token `genuine` (issuer, audience,
 * subject, client id) with `scope`, a fresh `jti` and fresh times, under the key id of `genuine`'s header, signed with
 * a key of the same algorithm generated here. Only the signature is wrong, so only the signature check can refuse it.
 */
export async function tokenOfUntrustedKey(genuine: string, scope: string): Promise<string> {
  const { kid, alg } = decodeProtectedHeader(genuine);
  const claims = decodeJwt(genuine);
  // The genuine key's algorithm (ES256 or EdDSA), so that the verifier picks the published key of that id.
  const algorithm = alg === 'EdDSA' ? 'EdDSA' : 'ES256';
  const { privateKey } = await generateKeyPair(algorithm, algorithm === 'EdDSA' ? { crv: 'Ed25519' } : {});
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ ...claims, scope, jti: randomUUID(), iat: now, nbf: now, exp: now + 300 })
    .setProtectedHeader({ alg: algorithm, kid, typ: 'at+jwt' })
    .sign(privateKey);
}

/** The genuine token's claims with `scope`, signed by a key generated here under a key id the API never published. */
export async function tokenOfUnknownKeyId(genuine: string, scope: string): Promise<string> {
  const claims = decodeJwt(genuine);
  const { privateKey } = await generateKeyPair('ES256');
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ ...claims, scope, jti: randomUUID(), iat: now, nbf: now, exp: now + 300 })
    .setProtectedHeader({ alg: 'ES256', kid: `e2e-unknown-${randomUUID()}`, typ: 'at+jwt' })
    .sign(privateKey);
}

/** The genuine token with its claims edited to carry `scope`, and the original signature kept. */
export function tokenWithEditedScope(genuine: string, scope: string): string {
  const [header, , signature] = genuine.split('.');
  const payload = Buffer.from(JSON.stringify({ ...decodeJwt(genuine), scope })).toString('base64url');
  return `${header}.${payload}.${signature}`;
}

/** The genuine token's claims with `scope`, as an unsigned JWT (`alg: none`, no signature) under its key id. */
export function unsignedToken(genuine: string, scope: string): string {
  const { kid } = decodeProtectedHeader(genuine);
  const header = Buffer.from(JSON.stringify({ alg: 'none', kid, typ: 'at+jwt' })).toString('base64url');
  const payload = Buffer.from(JSON.stringify({ ...decodeJwt(genuine), scope })).toString('base64url');
  return `${header}.${payload}.`;
}
