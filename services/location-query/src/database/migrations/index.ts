import { CreateLocationReadModel1795824000000 } from './1795824000000-CreateLocationReadModel';

/** Every migration of this service, oldest first. */
export const MIGRATIONS = [CreateLocationReadModel1795824000000];
