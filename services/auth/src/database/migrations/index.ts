import { CreateClientsAndSigningKeys1795824000000 } from './1795824000000-CreateClientsAndSigningKeys';
import { AddTokenIssuanceAndOutbox1795824100000 } from './1795824100000-AddTokenIssuanceAndOutbox';
import { AddClientVersion1795824200000 } from './1795824200000-AddClientVersion';
import { AddServiceClientKind1796774400000 } from './1796774400000-AddServiceClientKind';
import { AddTokenRevocation1797811200000 } from './1797811200000-AddTokenRevocation';
import { AddTokenThrottleBySource1797897600000 } from './1797897600000-AddTokenThrottleBySource';

/** Every migration of this service, oldest first. */
export const MIGRATIONS = [
  CreateClientsAndSigningKeys1795824000000,
  AddTokenIssuanceAndOutbox1795824100000,
  AddClientVersion1795824200000,
  AddServiceClientKind1796774400000,
  AddTokenRevocation1797811200000,
  AddTokenThrottleBySource1797897600000,
];
