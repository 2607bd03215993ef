import { z } from 'zod';
import { nonEmptyStringSchema, uuidSchema } from '../primitives';

/** Where the auth service serves the revocation list (internal: the ingress never routes `/internal/`). */
export const REVOCATIONS_PATH = '/internal/revocations';

/**
 * Reply of GET /internal/revocations: what every verifier refuses on top of the signature and claim checks. A
 * token of client `clientId` issued (`iat`, seconds) before `tokensIssuedBefore` was revoked by disabling the
 * client, rotating its secret or narrowing its scopes; a token signed by a key in `signingKeys` was revoked with
 * the key. Entries leave the list once every token they revoke has expired anyway. Fields a later release adds
 * are ignored, not refused, so older services go on polling.
 */
export const revocationListSchema = z.object({
  clients: z.array(z.object({ clientId: uuidSchema, tokensIssuedBefore: z.number().int().nonnegative() })),
  signingKeys: z.array(nonEmptyStringSchema),
});
/** Reply of GET /internal/revocations. */
export type RevocationList = z.infer<typeof revocationListSchema>;
