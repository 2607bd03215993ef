import { CreateLocationFacts1795824000000 } from './1795824000000-CreateLocationFacts';

/** Every migration of this service, oldest first. */
export const MIGRATIONS = [CreateLocationFacts1795824000000];
