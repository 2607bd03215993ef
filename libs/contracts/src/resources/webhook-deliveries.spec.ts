import { validate } from '../validation';
import {
  deliveryAttemptSchema,
  deliveryDetailSchema,
  deliveryListSchema,
  endpointSchema,
  redriveReplySchema,
  redriveRequestSchema,
  subscriptionUpdateSchema,
  WEBHOOK_EVENT_TYPES,
} from './webhook-deliveries';

const fieldsOf = (result: ReturnType<typeof validate>) => (result.ok ? [] : result.issues.map((issue) => issue.field));

describe('webhook delivery contracts', () => {
  it('names the event types an RSP can receive: the location and group changes, then the export outcomes', () => {
    expect(WEBHOOK_EVENT_TYPES).toEqual([
      'LOCATION_CREATED',
      'LOCATION_UPDATED',
      'LOCATION_GROUP_CREATED',
      'LOCATION_GROUP_UPDATED',
      'LOCATION_GROUP_DELETED',
      'ADDRESS_GROUP_CREATED',
      'ADDRESS_GROUP_UPDATED',
      'ADDRESS_GROUP_DELETED',
      'EXPORT_COMPLETED',
      'EXPORT_FAILED',
    ]);
  });

  it.each([
    [{ eventTypes: ['EXPORT_COMPLETED'] }, []],
    [{ eventTypes: null }, []],
    [{ eventTypes: [] }, ['eventTypes']],
    [{ eventTypes: ['CLIENT_REGISTERED'] }, ['eventTypes[0]']],
    [{}, ['eventTypes']],
    [{ eventTypes: null, url: 'x' }, ['url']],
  ])('checks a subscription update %j: problems at %j', (body, fields) => {
    expect(fieldsOf(validate(subscriptionUpdateSchema, body))).toEqual(fields);
  });

  it.each([
    [{ since: '2026-01-01T00:00:00Z' }, []],
    [{ since: '2026-01-01' }, ['since']],
    [{}, ['since']],
    [{ since: '2026-01-01T00:00:00Z', until: 'x' }, ['until']],
  ])('checks a redrive request %j: problems at %j', (body, fields) => {
    expect(fieldsOf(validate(redriveRequestSchema, body))).toEqual(fields);
  });

  it('accepts a delivery with its attempt log and an endpoint as the APIs send them', () => {
    const delivery = {
      id: '3f6c2a9e-8d1b-4c1e-9a57-0b4b6a1d2c3e',
      clientId: 'rsp-1',
      eventId: '4f6c2a9e-8d1b-4c1e-9a57-0b4b6a1d2c3e',
      eventType: 'LOCATION_UPDATED',
      status: 'DEAD',
      attempts: 1,
      createdAt: '2026-01-01T00:00:00Z',
      lastStatusCode: 500,
      lastError: 'WEBHOOK_DELIVERY_FAILED: server-error: HTTP 500',
      attemptLog: [
        {
          attempt: 1,
          attemptedAt: '2026-01-01T00:00:01Z',
          url: 'https://rsp.example/hooks',
          statusCode: 500,
          latencyMs: 12,
        },
      ],
    };
    expect(validate(deliveryDetailSchema, delivery).ok).toBe(true);
    expect(fieldsOf(validate(deliveryDetailSchema, { ...delivery, status: 'LOST' }))).toEqual(['status']);
    const endpoint = {
      clientId: 'rsp-1',
      enabled: true,
      state: 'FAILING',
      consecutiveFailures: 2,
      pendingDeliveries: 3,
    };
    expect(validate(endpointSchema, endpoint).ok).toBe(true);
    expect(fieldsOf(validate(endpointSchema, { ...endpoint, state: 'BROKEN' }))).toEqual(['state']);
  });

  const attempt = { attempt: 1, attemptedAt: '2026-01-01T00:00:01Z', url: 'https://rsp.example/hooks', latencyMs: 12 };

  it.each([
    [1, []],
    [2, []],
    [12, []],
    [0, ['attempt']],
    [1.5, ['attempt']],
  ])('checks attempt number %j: problems at %j', (number, fields) => {
    expect(fieldsOf(validate(deliveryAttemptSchema, { ...attempt, attempt: number }))).toEqual(fields);
  });

  it('checks a page of deliveries: the deliveries and the pagination', () => {
    const delivery = {
      id: '3f6c2a9e-8d1b-4c1e-9a57-0b4b6a1d2c3e',
      clientId: 'rsp-1',
      eventId: '4f6c2a9e-8d1b-4c1e-9a57-0b4b6a1d2c3e',
      eventType: 'EXPORT_FAILED',
      status: 'DELIVERED',
      attempts: 1,
      createdAt: '2026-01-01T00:00:00Z',
    };
    const page = { deliveries: [delivery], pagination: { limit: 20, offset: 0, total: 1 } };
    expect(fieldsOf(validate(deliveryListSchema, page))).toEqual([]);
    expect(fieldsOf(validate(deliveryListSchema, { deliveries: [delivery] }))).toEqual(['pagination']);
    expect(fieldsOf(validate(deliveryListSchema, { ...page, deliveries: [{ ...delivery, id: 'x' }] }))).toEqual([
      'deliveries[0].id',
    ]);
  });

  it.each([
    [{ redriven: 3 }, []],
    [{ redriven: -1 }, ['redriven']],
    [{}, ['redriven']],
  ])('checks a redrive reply %j: problems at %j', (body, fields) => {
    expect(fieldsOf(validate(redriveReplySchema, body))).toEqual(fields);
  });
});
