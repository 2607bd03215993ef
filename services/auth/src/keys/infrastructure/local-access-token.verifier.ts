import { Inject, Injectable } from '@nestjs/common';
import { JwtAccessTokenVerifier } from '@lx/platform';
import { AUTH_CONFIG, type AuthConfig } from '../../config/auth.config';
import { SigningKeyStore } from './signing-key.store';

/**
 * The auth service's own token check (for its admin API): the same verification every service does, with keys
 * from its store instead of its JWKS over HTTP, so it needs no address of itself and sees rotations at once.
 */
@Injectable()
export class LocalAccessTokenVerifier extends JwtAccessTokenVerifier {
  constructor(@Inject(AUTH_CONFIG) config: AuthConfig, store: SigningKeyStore) {
    super(config.auth, (header) => store.verificationKey(header.kid, header.alg));
  }
}
