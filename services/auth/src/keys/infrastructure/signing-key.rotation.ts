import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { SigningAlgorithm, SigningKey } from '../domain/signing-key';
import { SigningKeyFactory } from './signing-key.factory';
import { SigningKeyRepository } from './signing-key.repository';

/**
 * One rotation inside a transaction that holds the rotation lock (SigningKeyRepository.underRotationLock): the next key
 * becomes current (a next key of another algorithm, which never signed, is discarded and a fresh key promoted), the
 * current one is retired, and `upcoming` (made before the lock: generating keys takes time) becomes the next key.
 */
@Injectable()
export class SigningKeyRotation {
  constructor(
    private readonly keys: SigningKeyRepository,
    private readonly factory: SigningKeyFactory,
  ) {}

  async rotate(
    manager: EntityManager,
    algorithm: SigningAlgorithm,
    upcoming: SigningKey,
    now: Date,
  ): Promise<{ current: SigningKey; retired?: SigningKey }> {
    let next = await this.keys.findNext(manager);
    if (next !== null && next.algorithm !== algorithm) {
      // TOKEN_SIGNING_ALGORITHM changed since the next key was made; it never signed, so it can go.
      await this.keys.discard(manager, next.kid);
      next = null;
    }
    const promoted: SigningKey = { ...(next ?? (await this.factory.create(algorithm, null))), activatedAt: now };
    if (next === null) await this.keys.insert(manager, promoted);
    const old = await this.keys.findCurrent(manager);
    if (old !== null) await this.keys.retire(manager, old.kid, now);
    await this.keys.activate(manager, promoted.kid, now);
    await this.keys.insert(manager, upcoming);
    return { current: promoted, ...(old === null ? {} : { retired: { ...old, retiredAt: now } }) };
  }
}
