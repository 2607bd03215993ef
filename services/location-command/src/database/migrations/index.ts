import { CreateEventStoreAndOutbox1795824000000 } from './1795824000000-CreateEventStoreAndOutbox';

/** Every migration of this service, oldest first. */
export const MIGRATIONS = [CreateEventStoreAndOutbox1795824000000];
