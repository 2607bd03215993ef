import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { ClientKind, ClientSecrets, Scope } from '@lx/contracts';
import { ValidationFailedError } from '@lx/domain';
import { Clock, SecretBox } from '@lx/platform';
import { SecretHasher } from '../../common/secret-hasher';
import { generateClientSecret, generateWebhookSecret } from '../../common/secrets';
import { type Client, clientShapeIssues, hasWebhook, normalizeScopes, SCOPES_BY_KIND } from '../domain/client';
import { webhookSecretContext } from './webhook-secret';

export interface NewClientInput {
  name: string;
  kind: ClientKind;
  /** Defaults to every scope the kind may hold. */
  scopes?: readonly Scope[];
  webhookUrl?: string;
  /** Bootstrap only: the id and secret an operator chose in configuration instead of generated ones. */
  id?: string;
  secret?: string;
}

/**
 * Builds a client that does not exist yet, with freshly generated secrets: the secret hashed and the webhook
 * secret sealed. Runs before the storing transaction opens, because hashing is deliberately slow.
 */
@Injectable()
export class NewClientFactory {
  constructor(
    private readonly hasher: SecretHasher,
    private readonly box: SecretBox,
    private readonly clock: Clock,
  ) {}

  async create(input: NewClientInput): Promise<{ client: Client; secrets: ClientSecrets }> {
    const scopes = input.scopes ?? SCOPES_BY_KIND[input.kind];
    const webhookUrl = input.webhookUrl ?? null;
    const issues = clientShapeIssues(input.kind, scopes, webhookUrl);
    if (issues.length > 0) throw new ValidationFailedError(issues);

    const id = input.id ?? randomUUID();
    const { secretHash, webhookSecretEncrypted, secrets } = await this.newSecrets(id, input.kind, input.secret);
    const now = this.clock.now();
    const client: Client = {
      id,
      name: input.name,
      kind: input.kind,
      scopes: normalizeScopes(input.kind, scopes),
      enabled: true,
      version: 1,
      webhookUrl,
      secretHash,
      webhookSecretEncrypted,
      tokensIssuedBefore: null,
      createdAt: now,
      updatedAt: now,
    };
    return { client, secrets };
  }

  /** A new secret (and, for RSPs, a new webhook secret) for a client, as stored and as shown once. */
  async newSecrets(
    clientId: string,
    kind: ClientKind,
    chosenSecret?: string,
  ): Promise<{ secretHash: string; webhookSecretEncrypted: Buffer | null; secrets: ClientSecrets }> {
    const clientSecret = chosenSecret ?? generateClientSecret();
    const webhookSecret = hasWebhook(kind) ? generateWebhookSecret() : undefined;
    return {
      secretHash: await this.hasher.hash(clientSecret),
      webhookSecretEncrypted:
        webhookSecret === undefined ? null : this.box.seal(webhookSecret, webhookSecretContext(clientId)),
      secrets: { clientId, clientSecret, ...(webhookSecret === undefined ? {} : { webhookSecret }) },
    };
  }
}
