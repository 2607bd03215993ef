import { CreateClientsAndSigningKeys1795824000000 } from './1795824000000-CreateClientsAndSigningKeys';
import { AddTokenIssuanceAndOutbox1795824100000 } from './1795824100000-AddTokenIssuanceAndOutbox';
import { AddClientVersion1795824200000 } from './1795824200000-AddClientVersion';
import { AddServiceClientKind1796774400000 } from './1796774400000-AddServiceClientKind';

/** Every migration of this service, oldest first. */
export const MIGRATIONS = [
  CreateClientsAndSigningKeys1795824000000,
  AddTokenIssuanceAndOutbox1795824100000,
  AddClientVersion1795824200000,
  AddServiceClientKind1796774400000,
];
