import type { AnyEvent } from '@lx/contracts';
import { latestPerAggregate, PermanentProjectionError, type ProjectedEvent } from './projection';

const event = (id: string, version: number, offset: string): ProjectedEvent => ({
  event: { data: { id } } as unknown as AnyEvent,
  version,
  topic: 't',
  partition: 0,
  offset,
});

describe('latestPerAggregate', () => {
  it('given several versions of aggregates in any order, when reduced, then only the highest version of each stays', () => {
    const events = [event('a', 1, '1'), event('b', 4, '2'), event('a', 3, '3'), event('a', 2, '4'), event('b', 4, '5')];
    expect(latestPerAggregate(events, (projected) => (projected.event.data as { id: string }).id)).toEqual([
      event('a', 3, '3'),
      event('b', 4, '2'),
    ]);
  });
});

describe('PermanentProjectionError', () => {
  it('given an impossible state, when raised, then logs and stacks name it as a PermanentProjectionError', () => {
    const error = new PermanentProjectionError('version 3 after 5');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('PermanentProjectionError');
    expect(String(error)).toBe('PermanentProjectionError: version 3 after 5');
  });
});
