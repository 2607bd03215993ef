import { CreateEventStoreAndOutbox1795824000000 } from './1795824000000-CreateEventStoreAndOutbox';
import { CreateWatermarkFence1795996800000 } from './1795996800000-CreateWatermarkFence';
import { EventLogIsTheOutbox1796428800000 } from './1796428800000-EventLogIsTheOutbox';
import { CreateIdempotencyKeys1797552000000 } from './1797552000000-CreateIdempotencyKeys';
import { AddEventTraceParent1797984000000 } from './1797984000000-AddEventTraceParent';

/** Every migration of this service, oldest first. */
export const MIGRATIONS = [
  CreateEventStoreAndOutbox1795824000000,
  CreateWatermarkFence1795996800000,
  EventLogIsTheOutbox1796428800000,
  CreateIdempotencyKeys1797552000000,
  AddEventTraceParent1797984000000,
];
