import type { LogMessage } from '../infrastructure/notification-log.repository';
import { EndpointLane, type EndpointSubscription } from './endpoint-lane';
import { NotificationWindow } from './notification-window';

const subscription = (overrides: Partial<EndpointSubscription> = {}): EndpointSubscription => ({
  clientId: 'rsp-1',
  endpointNo: 1,
  deliverable: true,
  webhookUrl: 'https://rsp.example/hooks',
  eventTypes: null,
  startPosition: 0,
  startAtMs: 0,
  consecutiveFailures: 0,
  secret: { sealed: 'sealed', version: 1 },
  ...overrides,
});

const message = (position: number, overrides: Partial<LogMessage> = {}): LogMessage => ({
  bytes: Buffer.from('{}'),
  position,
  eventId: `event-${position}`,
  eventType: 'LOCATION_CREATED',
  path: '/locations/events',
  body: '{}',
  headers: {},
  correlationId: null,
  traceParent: null,
  occurredAtMs: 1_000,
  recipient: null,
  resourceId: `location-${position}`,
  ...overrides,
});

describe('EndpointLane', () => {
  it('given messages started and finished out of order, then its checkpoint stays before the first unfinished one', () => {
    const lane = new EndpointLane(subscription(), 1, 0, 16);
    lane.fetched([message(1), message(2), message(3)], 5);
    const [first, second, third] = [lane.nextMessage()!, lane.nextMessage()!, lane.nextMessage()!];
    expect([first.position, second.position, third.position]).toEqual([1, 2, 3]);

    lane.unfinished.delete(2);
    lane.unfinished.delete(3);
    expect(lane.checkpoint()).toBe(0);
    lane.unfinished.delete(1);
    expect(lane.checkpoint()).toBe(5);
  });

  it('given a failure whose record is written with the checkpoint, then the checkpoint may pass it', () => {
    const lane = new EndpointLane(subscription(), 1, 0, 16);
    lane.fetched([message(1), message(2)], 2);
    lane.nextMessage();
    lane.nextMessage();
    lane.unfinished.delete(2);

    expect(lane.checkpoint(new Set([1]))).toBe(2);
    expect(lane.checkpoint()).toBe(0);
  });

  it('given a buffered message not yet started, then the checkpoint stays before it', () => {
    const lane = new EndpointLane(subscription(), 1, 0, 16);
    lane.fetched([message(4)], 9);
    expect(lane.checkpoint()).toBe(3);
  });

  it('given two messages of one location, then the second waits until the first was attempted', () => {
    const lane = new EndpointLane(subscription(), 1, 0, 16);
    const first = message(1, { resourceId: 'same' });
    lane.fetched([first, message(2, { resourceId: 'same' }), message(3)], 3);

    expect(lane.nextMessage()).toBe(first);
    expect(lane.nextMessage()).toBeUndefined();
    lane.attempted(first);
    expect(lane.nextMessage()?.position).toBe(2);
  });

  it('given failures in a row up to the threshold, then its cursor pauses until one succeeds', () => {
    const lane = new EndpointLane(subscription(), 1, 0, 3);
    lane.fetched([message(1), message(2)], 2);
    lane.failuresInARow = 3;
    expect(lane.paused).toBe(true);
    expect(lane.nextMessage()).toBeUndefined();
    lane.failuresInARow = 0;
    expect(lane.nextMessage()?.position).toBe(1);
  });

  it('given its cursor restarted further on (enabled again), then it drops what it had fetched and jumps there', () => {
    const lane = new EndpointLane(subscription(), 1, 0, 16);
    lane.fetched([message(1), message(2)], 2);
    lane.update(subscription({ startPosition: 10 }));
    expect(lane.buffer).toEqual([]);
    expect(lane.readPosition).toBe(10);
  });

  it('given a cursor behind its start, then it starts reading at the start', () => {
    expect(new EndpointLane(subscription({ startPosition: 7 }), 1, 3, 16).readPosition).toBe(7);
  });
});

describe('NotificationWindow', () => {
  const scope = { clientId: 'rsp-1', eventTypes: null, startAtMs: 0 };

  it('given messages of other clients and types, then an endpoint reads only its own, scanning past the others', () => {
    const window = new NotificationWindow(1_000_000, 0);
    window.append([
      message(1, { recipient: 'rsp-2', eventType: 'EXPORT_COMPLETED' }),
      message(2),
      message(3, { eventType: 'LOCATION_UPDATED' }),
      message(4, { occurredAtMs: 10 }),
    ]);

    const read = window.read({ ...scope, eventTypes: ['LOCATION_CREATED'], startAtMs: 500 }, 0, 10);
    expect(read).toEqual({ kind: 'read', messages: [message(2)], scannedTo: 4 });
  });

  it('given a limit, then it stops before the next message of the endpoint', () => {
    const window = new NotificationWindow(1_000_000, 0);
    window.append([message(1), message(2), message(3)]);
    expect(window.read(scope, 0, 2)).toEqual({ kind: 'read', messages: [message(1), message(2)], scannedTo: 2 });
    expect(window.read(scope, 2, 2)).toEqual({ kind: 'read', messages: [message(3)], scannedTo: 3 });
  });

  it('given more than its bytes, then it drops the oldest and a cursor before them reads from the database', () => {
    const window = new NotificationWindow(2 * (512 + 4), 0);
    window.append([message(1), message(2), message(3), message(4)]);
    expect(window.read(scope, 0, 10)).toEqual({ kind: 'behind' });
    expect(window.read(scope, 2, 10)).toEqual({ kind: 'read', messages: [message(3), message(4)], scannedTo: 4 });
    expect(window.head).toBe(4);
  });

  it('given a cursor at the head, then it reads nothing and stays', () => {
    const window = new NotificationWindow(1_000_000, 7);
    expect(window.read(scope, 7, 10)).toEqual({ kind: 'read', messages: [], scannedTo: 7 });
  });
});
