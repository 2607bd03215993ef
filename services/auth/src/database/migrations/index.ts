import { CreateClientsAndSigningKeys1795824000000 } from './1795824000000-CreateClientsAndSigningKeys';

/** Every migration of this service, oldest first. */
export const MIGRATIONS = [CreateClientsAndSigningKeys1795824000000];
