import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { ClientKind, Scope } from '@lx/contracts';
import { AUTH_CONFIG, type AuthConfig } from '../../config/auth.config';
import { SigningKeyStore } from '../../keys/infrastructure/signing-key.store';
import { LocalRevocations } from './local-revocations';

export interface AccessTokenClaims {
  clientId: string;
  /** Which kind of client (`client_kind`): the services' rate limits go by it. */
  kind: ClientKind;
  scopes: readonly Scope[];
  issuedAt: Date;
}

/**
 * Signs access tokens as JWTs (RFC 9068 profile): issuer, audience, subject and client_id (the client), client_kind, scope,
 * iat, nbf, exp, a token id, and the signing key's id in the header. Never with a revoked key: a key revoked on
 * another replica makes this one reload its signer (the revocation list it reads is at most a second old).
 */
@Injectable()
export class AccessTokenSigner {
  constructor(
    private readonly keys: SigningKeyStore,
    private readonly revocations: LocalRevocations,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {}

  get ttlSeconds(): number {
    return this.config.tokens.ttlSeconds;
  }

  async sign(claims: AccessTokenClaims): Promise<string> {
    let signer = await this.keys.signer();
    if ((await this.revocations.current()).revokesKey(signer.kid)) {
      // Revoked on another replica: the cached signer would sign tokens every verifier refuses.
      this.keys.invalidate();
      signer = await this.keys.signer();
    }
    const iat = Math.floor(claims.issuedAt.getTime() / 1000);
    return new SignJWT({ scope: claims.scopes.join(' '), client_id: claims.clientId, client_kind: claims.kind })
      .setProtectedHeader({ alg: signer.algorithm, kid: signer.kid, typ: 'at+jwt' })
      .setIssuer(this.config.auth.issuer)
      .setAudience(this.config.auth.audience)
      .setSubject(claims.clientId)
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(iat + this.ttlSeconds)
      .setJti(randomUUID())
      .sign(signer.privateKey);
  }
}
