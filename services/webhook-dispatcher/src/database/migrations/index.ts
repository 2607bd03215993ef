import { CreateSubscriptionsAndDeliveries1795824000000 } from './1795824000000-CreateSubscriptionsAndDeliveries';
import { DeliveryEngine1796083200000 } from './1796083200000-DeliveryEngine';
import { EndpointEventsOutbox1796256000000 } from './1796256000000-EndpointEventsOutbox';
import { EndpointCursors1796688000000 } from './1796688000000-EndpointCursors';
import { AddNotificationTraceParent1797984000000 } from './1797984000000-AddNotificationTraceParent';

/** Every migration of this service, oldest first. */
export const MIGRATIONS = [
  CreateSubscriptionsAndDeliveries1795824000000,
  DeliveryEngine1796083200000,
  EndpointEventsOutbox1796256000000,
  EndpointCursors1796688000000,
  AddNotificationTraceParent1797984000000,
];
