import { randomUUID } from 'node:crypto';
import type { EventOf } from '@lx/contracts';
import { aLocation } from '@lx/domain/testing';
import { isWebhookEvent, notificationOf } from './notification';

const location = aLocation();
const updated: EventOf<'LOCATION_UPDATED'> = {
  id: randomUUID(),
  type: 'LOCATION_UPDATED',
  timestamp: '2026-11-23T10:00:00Z',
  source: 'location-command',
  data: location,
  modifiedFields: { notes: 'changed' },
};

describe('notificationOf', () => {
  it('given a location event, then every subscriber receives the OAF-100 body with the version and X-Event-* headers at /locations/events', () => {
    const notification = notificationOf(updated, 7, 'corr-1');
    expect(notification).toEqual({
      eventId: updated.id,
      eventType: 'LOCATION_UPDATED',
      occurredAt: '2026-11-23T10:00:00Z',
      correlationId: 'corr-1',
      path: '/locations/events',
      body: JSON.stringify({ event: { ...updated, version: 7 } }),
      headers: {
        'X-Event-Id': updated.id,
        'X-Event-Type': 'LOCATION_UPDATED',
        'X-Event-Timestamp': '2026-11-23T10:00:00Z',
        'X-Event-Sequence': '7',
      },
      resourceId: location.id,
    });
  });

  it('given a group deletion, then every subscriber receives it like a location event, its last state and version', () => {
    const group = { id: randomUUID(), name: 'Phase 2', type: 'OTHER' as const };
    const deleted: EventOf<'LOCATION_GROUP_DELETED'> = {
      id: randomUUID(),
      type: 'LOCATION_GROUP_DELETED',
      timestamp: '2026-11-23T10:00:02Z',
      source: 'location-command',
      data: group,
    };
    const notification = notificationOf(deleted, 3, undefined);
    expect(notification).toEqual({
      eventId: deleted.id,
      eventType: 'LOCATION_GROUP_DELETED',
      occurredAt: '2026-11-23T10:00:02Z',
      path: '/locations/events',
      body: JSON.stringify({ event: { ...deleted, version: 3 } }),
      headers: {
        'X-Event-Id': deleted.id,
        'X-Event-Type': 'LOCATION_GROUP_DELETED',
        'X-Event-Timestamp': '2026-11-23T10:00:02Z',
        'X-Event-Sequence': '3',
      },
      resourceId: group.id,
    });
  });

  it('given an export outcome, then only the requesting client receives exactly the notification at /locations/exports/events', () => {
    const notification = {
      requestId: randomUUID(),
      status: 'COMPLETED' as const,
      exportUrl: 'https://files.example/export.json',
      downloadExpiresAt: '2026-11-24T10:00:00Z',
      exportTimestamp: '2026-11-23T10:00:00Z',
      totalCount: 3,
    };
    const event: EventOf<'EXPORT_COMPLETED'> = {
      id: randomUUID(),
      type: 'EXPORT_COMPLETED',
      timestamp: '2026-11-23T10:00:01Z',
      source: 'export-worker',
      data: { clientId: 'rsp-1', notification },
    };
    expect(notificationOf(event, 1, undefined)).toEqual({
      eventId: event.id,
      eventType: 'EXPORT_COMPLETED',
      occurredAt: '2026-11-23T10:00:01Z',
      path: '/locations/exports/events',
      body: JSON.stringify(notification),
      headers: {},
      recipient: 'rsp-1',
    });
  });

  it.each([
    ['LOCATION_CREATED', true],
    ['LOCATION_UPDATED', true],
    ['EXPORT_COMPLETED', true],
    ['EXPORT_FAILED', true],
    ['EXPORT_REQUESTED', false],
    ['CLIENT_REGISTERED', false],
    ['LOCATION_GROUP_CREATED', true],
    ['LOCATION_GROUP_UPDATED', true],
    ['LOCATION_GROUP_DELETED', true],
    ['ADDRESS_GROUP_CREATED', true],
    ['ADDRESS_GROUP_UPDATED', true],
    ['ADDRESS_GROUP_DELETED', true],
  ])('given a %s event, then it is a webhook event: %s', (type, expected) => {
    expect(isWebhookEvent({ type })).toBe(expected);
  });
});
