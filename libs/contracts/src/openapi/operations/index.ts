// The operation table of the public API, one file per actor, assembled here in the document's order.
import { ADMINISTRATION_OPERATIONS } from './administration';
import type { ApiOperation } from './api-operation';
import { AUTH_OPERATIONS } from './auth';
import { EXPORT_OPERATIONS } from './exports';
import { GROUP_OPERATIONS } from './groups';
import { LOCATION_OPERATIONS } from './locations';
import { OPERATOR_OPERATIONS } from './operator';
import { WEBHOOK_OPERATIONS } from './webhooks';

export { type ApiOperation, type Body, mediaTypeOf, type Reply, requestBodies } from './api-operation';
export { SCHEMAS } from './schemas';
export { WEBHOOK_TAG, WEBHOOKS } from './webhook-events';

/** Every operation of the public API. */
export const API_OPERATIONS: ApiOperation[] = [
  // Authentication
  ...AUTH_OPERATIONS,
  // Locations (RSP)
  ...LOCATION_OPERATIONS,
  ...GROUP_OPERATIONS,
  // Exports (RSP)
  ...EXPORT_OPERATIONS,
  // Webhooks (RSP self-service)
  ...WEBHOOK_OPERATIONS,
  // Operator
  ...OPERATOR_OPERATIONS,
  // Administration
  ...ADMINISTRATION_OPERATIONS,
];
