import type { SigningAlgorithm, SigningKey, SigningKeyStatus } from './signing-key';
import { statusOf } from './signing-key';

/** A signing key as administrators see it: never the private part. */
export interface SigningKeyView {
  kid: string;
  algorithm: SigningAlgorithm;
  status: SigningKeyStatus;
  createdAt: string;
  activatedAt?: string;
  retiredAt?: string;
  revokedAt?: string;
}

export function toSigningKeyView(key: SigningKey, now: Date, tokenTtlSeconds: number): SigningKeyView {
  return {
    kid: key.kid,
    algorithm: key.algorithm,
    status: statusOf(key, now, tokenTtlSeconds),
    createdAt: key.createdAt.toISOString(),
    ...(key.activatedAt === null ? {} : { activatedAt: key.activatedAt.toISOString() }),
    ...(key.retiredAt === null ? {} : { retiredAt: key.retiredAt.toISOString() }),
    ...(key.revokedAt === null ? {} : { revokedAt: key.revokedAt.toISOString() }),
  };
}
