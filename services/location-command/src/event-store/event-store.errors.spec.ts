import { ConflictError } from '@lx/domain';
import { ConcurrentWriteError, isStreamVersionConflict } from './event-store.errors';

describe('isStreamVersionConflict', () => {
  it('given a unique violation of the stream version key, when classified, then it is a conflict', () => {
    expect(isStreamVersionConflict({ code: '23505', constraint: 'events_stream_id_stream_version_key' })).toBe(true);
  });

  it('given a deadlock, when classified, then it is a conflict', () => {
    expect(isStreamVersionConflict({ code: '40P01' })).toBe(true);
  });

  it.each([
    ['another unique key', { code: '23505', constraint: 'events_event_id_key' }],
    ['another error', { code: '22P02' }],
    ['no object', 'boom'],
    ['null', null],
  ])('given %s, when classified, then it is not a conflict', (_name, error) => {
    expect(isStreamVersionConflict(error)).toBe(false);
  });
});

describe('ConcurrentWriteError', () => {
  it('is a CONFLICT that tells the client to retry', () => {
    const error = new ConcurrentWriteError();
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toMatch(/retry/);
  });
});
