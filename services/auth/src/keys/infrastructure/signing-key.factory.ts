import { Injectable } from '@nestjs/common';
import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair } from 'jose';
import { Clock, SecretBox } from '@lx/platform';
import type { SigningAlgorithm, SigningKey } from '../domain/signing-key';

/** Additional authenticated data of a sealed private key: it decrypts only as the key with this id. */
export const privateKeyContext = (kid: string): string => `signing-key:${kid}`;

/**
 * Generates a new key pair: the key id is the public key's RFC 7638 thumbprint, the private key is sealed.
 * `activatedAt` null makes it the next key; a date makes it current from then.
 */
@Injectable()
export class SigningKeyFactory {
  constructor(
    private readonly box: SecretBox,
    private readonly clock: Clock,
  ) {}

  async create(algorithm: SigningAlgorithm, activatedAt: Date | null): Promise<SigningKey> {
    const { publicKey, privateKey } = await generateKeyPair(algorithm, {
      extractable: true,
      ...(algorithm === 'EdDSA' ? { crv: 'Ed25519' } : {}),
    });
    const jwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(jwk);
    return {
      kid,
      algorithm,
      publicJwk: { ...jwk, kid, alg: algorithm, use: 'sig' },
      privateKeyEncrypted: this.box.seal(await exportPKCS8(privateKey), privateKeyContext(kid)),
      createdAt: this.clock.now(),
      activatedAt,
      retiredAt: null,
      revokedAt: null,
    };
  }
}
