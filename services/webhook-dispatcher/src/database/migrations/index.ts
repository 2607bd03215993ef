import { CreateSubscriptionsAndDeliveries1795824000000 } from './1795824000000-CreateSubscriptionsAndDeliveries';

/** Every migration of this service, oldest first. */
export const MIGRATIONS = [CreateSubscriptionsAndDeliveries1795824000000];
