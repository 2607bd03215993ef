import type { RevocationList } from '@lx/contracts';
import { CLOCK_TOLERANCE_SECONDS } from '@lx/platform';
import { MAX_TOKEN_TTL_SECONDS } from '../../config/auth.config';

/**
 * The oldest revocation still listed at `now`: a token lives at most MAX_TOKEN_TTL_SECONDS (whatever the lifetime
 * configured when it was issued) plus the verifiers' clock tolerance, so an older revocation refuses only tokens that
 * have expired anyway.
 */
export function revocationHorizon(now: Date): Date {
  return new Date(now.getTime() - (MAX_TOKEN_TTL_SECONDS + CLOCK_TOLERANCE_SECONDS) * 1000);
}

/** The list as verifiers receive it: cut-offs in whole seconds (a token's `iat` is), ordered so equal lists read the same. */
export function toRevocationList(
  clients: readonly { clientId: string; tokensIssuedBefore: Date }[],
  signingKeys: readonly string[],
): RevocationList {
  return {
    clients: [...clients]
      .sort((a, b) => (a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : 0))
      .map((entry) => ({
        clientId: entry.clientId,
        tokensIssuedBefore: Math.ceil(entry.tokensIssuedBefore.getTime() / 1000),
      })),
    signingKeys: [...signingKeys].sort(),
  };
}
