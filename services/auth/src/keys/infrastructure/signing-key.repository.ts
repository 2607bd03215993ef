import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager, IsNull, MoreThan, Not } from 'typeorm';
import type { SigningKey } from '../domain/signing-key';
import { SigningKeyEntity } from './signing-key.entity';

/** Signing keys in Postgres. */
@Injectable()
export class SigningKeyRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Runs `work` in a transaction that holds the key-rotation lock, so rotations (and the first keys) serialize. */
  async underRotationLock<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['auth:signing-keys']);
      return work(manager);
    });
  }

  async findCurrent(manager: EntityManager = this.dataSource.manager): Promise<SigningKey | null> {
    return manager.findOneBy(SigningKeyEntity, { activatedAt: Not(IsNull()), retiredAt: IsNull() });
  }

  async findNext(manager: EntityManager = this.dataSource.manager): Promise<SigningKey | null> {
    return manager.findOneBy(SigningKeyEntity, { activatedAt: IsNull() });
  }

  /** The next and current keys and those retired after `retiredAfter`, newest first; never a revoked key. */
  async findPublished(retiredAfter: Date): Promise<SigningKey[]> {
    return this.dataSource.manager.find(SigningKeyEntity, {
      where: [
        { retiredAt: IsNull(), revokedAt: IsNull() },
        { retiredAt: MoreThan(retiredAfter), revokedAt: IsNull() },
      ],
      order: { createdAt: 'DESC' },
    });
  }

  async findByKid(kid: string, manager: EntityManager = this.dataSource.manager): Promise<SigningKey | null> {
    return manager.findOneBy(SigningKeyEntity, { kid });
  }

  /** Ids of the keys revoked after `after`. */
  async findRevokedSince(after: Date): Promise<string[]> {
    const keys = await this.dataSource.manager.find(SigningKeyEntity, {
      select: { kid: true },
      where: { revokedAt: MoreThan(after) },
      order: { kid: 'ASC' },
    });
    return keys.map((key) => key.kid);
  }

  /** Revokes a retired key (a current one is rotated out first). */
  async revoke(manager: EntityManager, kid: string, at: Date): Promise<void> {
    await manager.update(SigningKeyEntity, { kid, retiredAt: Not(IsNull()) }, { revokedAt: at });
  }

  async findAll(): Promise<SigningKey[]> {
    return this.dataSource.manager.find(SigningKeyEntity, { order: { createdAt: 'DESC' } });
  }

  async insert(manager: EntityManager, key: SigningKey): Promise<void> {
    await manager.insert(SigningKeyEntity, key);
  }

  async activate(manager: EntityManager, kid: string, at: Date): Promise<void> {
    await manager.update(SigningKeyEntity, { kid }, { activatedAt: at });
  }

  async retire(manager: EntityManager, kid: string, at: Date): Promise<void> {
    await manager.update(SigningKeyEntity, { kid }, { retiredAt: at });
  }

  /** Only for a next key that never signed anything (its algorithm is no longer the configured one). */
  async discard(manager: EntityManager, kid: string): Promise<void> {
    await manager.delete(SigningKeyEntity, { kid, activatedAt: IsNull() });
  }
}
