import { z } from 'zod';
import { nonEmptyStringSchema } from '../primitives';

/** The only grant the token endpoint supports (RFC 6749 section 4.4). */
export const CLIENT_CREDENTIALS_GRANT = 'client_credentials';

/** Reply of POST /oauth/token (RFC 6749 section 5.1; the spec's Authentication table). */
export const tokenResponseSchema = z
  .object({
    access_token: nonEmptyStringSchema,
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().positive(),
    /** Space-separated scopes the token carries. */
    scope: z.string(),
  })
  .strict();
/** Reply of POST /oauth/token. */
export type TokenResponse = z.infer<typeof tokenResponseSchema>;

/**
 * Error codes of the token endpoint: RFC 6749 section 5.2, plus `temporarily_unavailable` (RFC 6749 section
 * 4.1.2.1), which the endpoint answers with 429 while a client id is throttled after repeated failures.
 */
export const OAUTH_ERRORS = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'temporarily_unavailable',
] as const;
/** An RFC 6749 error code. */
export type OAuthErrorCode = (typeof OAUTH_ERRORS)[number];

/**
 * Error reply of POST /oauth/token. It follows RFC 6749 section 5.2, not the spec's `{error: {code}}` envelope,
 * because RSPs point standard OAuth client libraries at this endpoint and those parse section 5.2.
 */
export const oauthErrorBodySchema = z
  .object({ error: z.enum(OAUTH_ERRORS), error_description: z.string().optional() })
  .strict();
/** Error reply of POST /oauth/token. */
export type OAuthErrorBody = z.infer<typeof oauthErrorBodySchema>;
