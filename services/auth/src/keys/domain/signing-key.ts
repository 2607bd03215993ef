import type { JWK } from 'jose';
import { CLOCK_TOLERANCE_SECONDS } from '@lx/platform';

/** Algorithms the auth service can sign access tokens with (the verifiers accept exactly these). */
export type SigningAlgorithm = 'ES256' | 'EdDSA';

/**
 * A key pair that signs access tokens; its private part is stored sealed. Life cycle: next (published, not signing
 * yet) → current (signing) → previous (retired, still verifying the tokens it signed) → expired.
 */
export interface SigningKey {
  kid: string;
  algorithm: SigningAlgorithm;
  publicJwk: JWK;
  privateKeyEncrypted: Buffer;
  createdAt: Date;
  activatedAt: Date | null;
  retiredAt: Date | null;
  /** When an administrator revoked it: every token it signed is refused, it is no longer published. */
  revokedAt: Date | null;
}

export type SigningKeyStatus = 'next' | 'current' | 'previous' | 'expired' | 'revoked';

/**
 * Beyond the token lifetime, how long a retired key stays published: covers replicas that keep signing with a
 * just-retired key until their cache refreshes, and the verifiers' clock tolerance.
 */
export const PUBLICATION_MARGIN_SECONDS = 60;

/** The earliest retirement time whose key is still published at `now`: a token signed just before it lives a TTL more. */
export function oldestPublishedRetirement(now: Date, tokenTtlSeconds: number): Date {
  return new Date(now.getTime() - (tokenTtlSeconds + PUBLICATION_MARGIN_SECONDS + CLOCK_TOLERANCE_SECONDS) * 1000);
}

export function statusOf(
  key: Pick<SigningKey, 'activatedAt' | 'retiredAt' | 'revokedAt'>,
  now: Date,
  tokenTtlSeconds: number,
): SigningKeyStatus {
  if (key.revokedAt !== null) return 'revoked';
  if (key.activatedAt === null) return 'next';
  if (key.retiredAt === null) return 'current';
  return key.retiredAt > oldestPublishedRetirement(now, tokenTtlSeconds) ? 'previous' : 'expired';
}
