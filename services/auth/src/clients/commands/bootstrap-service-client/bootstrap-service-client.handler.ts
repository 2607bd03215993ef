import { Injectable } from '@nestjs/common';
import { Clock } from '@lx/platform';
import { changeClient, type Client, sameScopes } from '../../domain/client';
import { NewClientFactory } from '../../infrastructure/new-client.factory';
import { ClientUnitOfWork } from '../../infrastructure/client.unit-of-work';

export interface BootstrapServiceClientCommand {
  clientId: string;
  clientSecret: string;
}

/**
 * `created`, `upgraded` (the OPERATOR client of earlier versions, or a SERVICE client with other scopes, given the
 * kind and scopes of SERVICE_CLIENT), or why nothing was done.
 */
export type BootstrapServiceClientOutcome = 'created' | 'upgraded' | 'exists' | 'id-taken';

/**
 * What the internal services' client may do: read what an export reads, the public reads (a group's existence, the
 * statistics count) and the internal endpoints (the snapshot and the fence).
 */
export const SERVICE_CLIENT = {
  name: 'internal services',
  kind: 'SERVICE',
  scopes: ['locations:read', 'locations:internal'],
} as const;

/**
 * The service client as versions before the SERVICE kind created it: an OPERATOR with locations:read (which every RSP
 * holds too, so the internal endpoints could not tell the export worker from an RSP).
 */
const isEarlierServiceClient = (client: Client): boolean =>
  client.kind === 'OPERATOR' && client.name === SERVICE_CLIENT.name && sameScopes(client.scopes, ['locations:read']);

/** A SERVICE client whose scopes are not (or no longer) those the code gives it, such as after an upgrade. */
const hasOtherServiceScopes = (client: Client): boolean =>
  client.kind === SERVICE_CLIENT.kind && !sameScopes(client.scopes, SERVICE_CLIENT.scopes);

/**
 * Creates the internal services' own API client (the export worker's, for the internal endpoints it reads from)
 * from configuration when no client has its id yet: a Kubernetes Secret holds the id and secret, auth creates the
 * client at its first start and the export worker uses the same Secret, so one `helm install` wires both. Once the
 * client exists the configured secret is not compared again: rotating it is the admin API's rotate-secret, then the
 * Secret is updated (docs/kubernetes.md). Its kind and scopes are the code's: every start gives them back to it (after
 * an upgrade, or an admin's change of its scopes).
 */
@Injectable()
export class BootstrapServiceClientHandler {
  constructor(
    private readonly unitOfWork: ClientUnitOfWork,
    private readonly factory: NewClientFactory,
    private readonly clock: Clock,
  ) {}

  async execute(command: BootstrapServiceClientCommand): Promise<BootstrapServiceClientOutcome> {
    const { client } = await this.factory.create({
      id: command.clientId,
      secret: command.clientSecret,
      name: SERVICE_CLIENT.name,
      kind: SERVICE_CLIENT.kind,
      scopes: SERVICE_CLIENT.scopes,
    });
    return this.unitOfWork.run(async (transaction) => {
      // Replicas starting together: one creates the client, the others then see it.
      await transaction.lock('auth:bootstrap-service-client');
      // Locked as an admin's change locks it: both bump the version, and two events of one version must not exist.
      const existing = await transaction.lockById(client.id);
      if (existing !== null && (isEarlierServiceClient(existing) || hasOtherServiceScopes(existing))) {
        const { kind, scopes } = SERVICE_CLIENT;
        const upgraded = { ...changeClient(existing, { scopes: [...scopes] }, this.clock.now()), kind };
        await transaction.save(upgraded);
        await transaction.append('CLIENT_UPDATED', upgraded);
        return 'upgraded';
      }
      if (existing !== null) return existing.kind === SERVICE_CLIENT.kind ? 'exists' : 'id-taken';
      await transaction.insert(client);
      await transaction.append('CLIENT_REGISTERED', client);
      return 'created';
    });
  }
}
