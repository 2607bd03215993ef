import { Controller, Get, Header } from '@nestjs/common';
import type { JWK } from 'jose';
import { SigningKeyStore } from '../infrastructure/signing-key.store';

/** Path of the key set; public (no bearer token). */
export const JWKS_PATH = '/.well-known/jwks.json';

/** The public keys that verify access tokens (RFC 7517 key set), served without a token. */
@Controller('.well-known')
export class JwksController {
  constructor(private readonly store: SigningKeyStore) {}

  /** `no-cache`: verifiers cache it themselves; a shared cache in between would only delay new next keys. */
  @Get('jwks.json')
  @Header('cache-control', 'no-cache')
  async jwks(): Promise<{ keys: JWK[] }> {
    return { keys: await this.store.publishedKeys() };
  }
}
