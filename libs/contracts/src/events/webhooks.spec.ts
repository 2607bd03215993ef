import { randomUUID } from 'node:crypto';
import type { EventOf } from './event-types';
import { changeDeliveryOf, changeHeadersOf } from './webhooks';

const group = { id: randomUUID(), name: 'Phase 2', type: 'OTHER' as const };
const renamed: EventOf<'LOCATION_GROUP_UPDATED'> = {
  id: randomUUID(),
  type: 'LOCATION_GROUP_UPDATED',
  timestamp: '2026-11-27T10:00:00.000Z',
  source: 'location-command',
  data: group,
};

describe('the description of a change, the same by webhook and in the change feed', () => {
  it('given an event and its version, then the body is the envelope under event, its keys in order and version last', () => {
    const body = changeDeliveryOf(renamed, 2);
    expect(JSON.stringify(body)).toBe(JSON.stringify({ event: { ...renamed, version: 2 } }));
    expect(Object.keys(body.event)).toEqual(['id', 'type', 'timestamp', 'source', 'data', 'version']);
  });

  it('given an event and its version, then the X-Event-* headers name its id, type, time and version', () => {
    expect(changeHeadersOf(renamed, 2)).toEqual({
      'X-Event-Id': renamed.id,
      'X-Event-Type': 'LOCATION_GROUP_UPDATED',
      'X-Event-Timestamp': '2026-11-27T10:00:00.000Z',
      'X-Event-Sequence': '2',
    });
  });
});
