import { z } from 'zod';

/**
 * Every OAuth scope an access token may carry. The spec shows `locations:read` and `locations:write`; the
 * administrative scopes are this project's own.
 */
export const SCOPES = {
  /** RSP reads: locations, groups, statistics, exports. */
  locationsRead: 'locations:read',
  /** The operator's write API. */
  locationsWrite: 'locations:write',
  /** Administration of the auth service: API clients and signing keys. */
  authAdmin: 'auth:admin',
  /** Operations of the webhook dispatcher: every client's deliveries, redrives, endpoint states. */
  webhooksAdmin: 'webhooks:admin',
  /**
   * The internal endpoints the export worker reads from (the snapshot stream, the watermark fence): held only by the
   * internal services' client (kind SERVICE), which no admin API call can create or give it to another client.
   */
  locationsInternal: 'locations:internal',
} as const;

/** One OAuth scope. */
export type Scope = (typeof SCOPES)[keyof typeof SCOPES];

/** Every scope, in table order. */
export const ALL_SCOPES = Object.values(SCOPES) as [Scope, ...Scope[]];

/**
 * The scopes a client registered through the admin API can hold, which the authorization server's metadata advertises
 * (RFC 8414 lets a server leave scopes out): every scope but the internal services' own.
 */
export const REGISTRABLE_SCOPES = ALL_SCOPES.filter((scope) => scope !== SCOPES.locationsInternal);

/** One of the known scopes. */
export const scopeSchema = z.enum(ALL_SCOPES);

/** Whether a string names a known scope. */
export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}
