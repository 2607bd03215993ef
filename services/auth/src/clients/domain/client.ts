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
  createdAt: Date;
  updatedAt: Date;
}

/** What a use case may change about a client. */
export type ClientChange = Partial<
  Pick<Client, 'name' | 'scopes' | 'enabled' | 'webhookUrl' | 'secretHash' | 'webhookSecretEncrypted'>
>;

/** The client after one change: the next version, updated now. Every change that publishes an event goes through it. */
export function changeClient(client: Client, change: ClientChange, now: Date): Client {
  return { ...client, ...change, version: client.version + 1, updatedAt: now };
}

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
