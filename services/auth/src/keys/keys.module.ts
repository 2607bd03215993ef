import { Module } from '@nestjs/common';
import { EnsureSigningKeyHandler } from './commands/ensure-signing-key/ensure-signing-key.handler';
import { RevokeSigningKeyHandler } from './commands/revoke-signing-key/revoke-signing-key.handler';
import { RotateSigningKeyHandler } from './commands/rotate-signing-key/rotate-signing-key.handler';
import { LocalAccessTokenVerifier } from './infrastructure/local-access-token.verifier';
import { SigningKeyFactory } from './infrastructure/signing-key.factory';
import { SigningKeyRepository } from './infrastructure/signing-key.repository';
import { SigningKeyRotation } from './infrastructure/signing-key.rotation';
import { SigningKeyStore } from './infrastructure/signing-key.store';
import { ListSigningKeysHandler } from './queries/list-signing-keys/list-signing-keys.handler';

const HANDLERS = [EnsureSigningKeyHandler, RotateSigningKeyHandler, RevokeSigningKeyHandler, ListSigningKeysHandler];

/** Signing keys: generation, rotation, revocation, the current signer, published and verification keys. */
@Module({
  providers: [
    SigningKeyRepository,
    SigningKeyFactory,
    SigningKeyRotation,
    SigningKeyStore,
    LocalAccessTokenVerifier,
    ...HANDLERS,
  ],
  exports: [SigningKeyRepository, SigningKeyStore, LocalAccessTokenVerifier, ...HANDLERS],
})
export class KeysModule {}
