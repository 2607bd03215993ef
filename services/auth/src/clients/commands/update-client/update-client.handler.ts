import { Injectable } from '@nestjs/common';
import type { ClientView, UpdateClientRequest } from '@lx/contracts';
import { ValidationFailedError } from '@lx/domain';
import { Clock } from '@lx/platform';
import {
  changeClient,
  clientShapeIssues,
  narrowsScopes,
  normalizeScopes,
  sameScopes,
  tokenRevocationAt,
  toClientView,
} from '../../domain/client';
import { ClientNotFoundError } from '../../domain/client.errors';
import { ClientUnitOfWork } from '../../infrastructure/client.unit-of-work';

export type UpdateClientCommand = UpdateClientRequest & {
  clientId: string;
  /** Travels into the event's lx-correlation-id header (the HTTP request id). */
  correlationId?: string;
};

/**
 * Changes a client's name, scopes or webhook URL; publishes CLIENT_UPDATED when something changed. Tokens
 * already issued keep the scopes they were issued with; when a scope is taken away, they are revoked.
 */
@Injectable()
export class UpdateClientHandler {
  constructor(
    private readonly unitOfWork: ClientUnitOfWork,
    private readonly clock: Clock,
  ) {}

  async execute(command: UpdateClientCommand): Promise<ClientView> {
    return this.unitOfWork.run(async (transaction) => {
      const client = await transaction.lockById(command.clientId);
      if (client === null) throw new ClientNotFoundError(command.clientId);

      const scopes = command.scopes ?? client.scopes;
      const webhookUrl = command.webhookUrl === undefined ? client.webhookUrl : command.webhookUrl;
      const issues = clientShapeIssues(client.kind, scopes, webhookUrl);
      if (issues.length > 0) throw new ValidationFailedError(issues);

      const change = { name: command.name ?? client.name, scopes: normalizeScopes(client.kind, scopes), webhookUrl };
      const changed =
        change.name !== client.name ||
        change.webhookUrl !== client.webhookUrl ||
        !sameScopes(change.scopes, client.scopes);
      if (!changed) return toClientView(client);

      const now = this.clock.now();
      // A token keeps the scopes it was issued with: one that carries a scope taken away is revoked.
      const revocation = narrowsScopes(client.scopes, change.scopes)
        ? { tokensIssuedBefore: tokenRevocationAt(now) }
        : {};
      const updated = changeClient(client, { ...change, ...revocation }, now);
      await transaction.save(updated);
      await transaction.append('CLIENT_UPDATED', updated, command);
      return toClientView(updated);
    });
  }
}
