import type { ClientKind, ClientView, Scope, ValidationIssue } from '@lx/contracts';

/** An API client as auth stores it. The secret exists only as a hash; the webhook secret only encrypted. */
export interface Client {
  id: string;
  name: string;
  kind: ClientKind;
  scopes: Scope[];
  enabled: boolean;
  /**
   * 1 when registered, one more with every change: the `lx-aggregate-version` of the client's events, which consumers
   * of client.events.v1 guard on.
   */
  version: number;
  /** RSPs only: base URL that export and location notifications are posted under. */
  webhookUrl: string | null;
  secretHash: string;
  /** RSPs only: the HMAC key for signing webhook deliveries, sealed by SecretBox. */
  webhookSecretEncrypted: Buffer | null;
  /**
   * Tokens issued before this instant are revoked (every verifier refuses them): set when the client is disabled,
   * its secret rotated or its scopes narrowed. Null until the first such change.
   */
  tokensIssuedBefore: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a use case may change about a client. */
export type ClientChange = Partial<
  Pick<
    Client,
    'name' | 'scopes' | 'enabled' | 'webhookUrl' | 'secretHash' | 'webhookSecretEncrypted' | 'tokensIssuedBefore'
  >
>;

/** The client after one change: the next version, updated now. Every change that publishes an event goes through it. */
export function changeClient(client: Client, change: ClientChange, now: Date): Client {
  return { ...client, ...change, version: client.version + 1, updatedAt: now };
}

/**
 * Seconds a revocation's cut-off lies beyond the next whole second: tokens issued from the client's state before the
 * change commits (its transaction takes some time after reading the clock), or by a replica whose clock is a little
 * behind, still fall before it. New tokens dated at the cut-off stay within every verifier's clock tolerance.
 */
export const REVOCATION_MARGIN_SECONDS = 2;

/**
 * The cut-off that revokes every token a client holds at `now`: REVOCATION_MARGIN_SECONDS after the next whole
 * second. A token's `iat` is whole seconds rounded down, so every token issued up to `now`, and a little after, falls
 * before it.
 */
export function tokenRevocationAt(now: Date): Date {
  return new Date((Math.floor(now.getTime() / 1000) + 1 + REVOCATION_MARGIN_SECONDS) * 1000);
}

/**
 * When a token issued at `now` says it was issued: `now`, except before the cut-off of a revocation, when it is dated
 * at the cut-off (at most REVOCATION_MARGIN_SECONDS + 1 ahead, within every verifier's 5 s clock tolerance) so the
 * revocation spares the client's new tokens.
 */
export function tokenIssuedAt(client: Pick<Client, 'tokensIssuedBefore'>, now: Date): Date {
  const cutOff = client.tokensIssuedBefore;
  return cutOff !== null && cutOff > now ? cutOff : now;
}

/** Whether a change of scopes from `before` to `after` takes one away (tokens carrying it must then be revoked). */
export const narrowsScopes = (before: readonly string[], after: readonly string[]): boolean =>
  before.some((scope) => !after.includes(scope));

/** The scopes each kind of client may hold: least privilege, so an RSP can never be given write or admin access. */
export const SCOPES_BY_KIND: Readonly<Record<ClientKind, readonly Scope[]>> = {
  RSP: ['locations:read'],
  OPERATOR: ['locations:read', 'locations:write'],
  ADMIN: ['auth:admin', 'webhooks:admin'],
  SERVICE: ['locations:read', 'locations:internal'],
};

/** Only RSPs receive webhooks, so only they have a webhook URL and a webhook signing secret. */
export const hasWebhook = (kind: ClientKind): boolean => kind === 'RSP';

/** Rules a client's kind, scopes and webhook URL must satisfy together; one issue per broken rule. */
export function clientShapeIssues(
  kind: ClientKind,
  scopes: readonly Scope[],
  webhookUrl: string | null,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const allowed = SCOPES_BY_KIND[kind];
  const refused = scopes.filter((scope) => !allowed.includes(scope));
  if (refused.length > 0) {
    issues.push({
      field: 'scopes',
      rule: 'scopesOfKind',
      message: `scopes of ${kind} clients must be among ${allowed.join(', ')}; not allowed: ${refused.join(', ')}`,
    });
  }
  if (webhookUrl !== null && !hasWebhook(kind)) {
    issues.push({ field: 'webhookUrl', rule: 'webhookOfKind', message: `${kind} clients cannot have a webhookUrl` });
  }
  return issues;
}

/** The same scopes in the same order (normalized scopes are in their kind's order). */
export const sameScopes = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((scope, i) => scope === b[i]);

/** Allowed scopes without duplicates, in the kind's order, so equal sets always read the same. */
export function normalizeScopes(kind: ClientKind, scopes: readonly Scope[]): Scope[] {
  return SCOPES_BY_KIND[kind].filter((scope) => scopes.includes(scope));
}

/** How the admin API and the CLI show a client: never a secret. */
export function toClientView(client: Client): ClientView {
  return {
    clientId: client.id,
    name: client.name,
    kind: client.kind,
    scopes: [...client.scopes],
    enabled: client.enabled,
    ...(client.webhookUrl === null ? {} : { webhookUrl: client.webhookUrl }),
    createdAt: client.createdAt.toISOString(),
    updatedAt: client.updatedAt.toISOString(),
  };
}
