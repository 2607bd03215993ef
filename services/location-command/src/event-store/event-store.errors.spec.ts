import { ConflictError } from '@lx/domain';
import {
  ConcurrentWriteError,
  FencedWriteError,
  isRetryableWrite,
  isStreamVersionConflict,
} from './event-store.errors';

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

describe('FencedWriteError', () => {
  const fenced = (timestamp: string, fencedAt: string) => new FencedWriteError(timestamp, new Date(fencedAt));

  it('names the write time and the fence', () => {
    expect(fenced('2024-01-15T10:00:00.000Z', '2024-01-15T10:00:00.005Z').message).toBe(
      "the write's time 2024-01-15T10:00:00.000Z is not after the watermark fence 2024-01-15T10:00:00.005Z",
    );
  });

  it.each([
    ['in the same millisecond as the fence', '2024-01-15T10:00:00.000Z', 1],
    ['5 ms before it', '2024-01-15T09:59:59.995Z', 6],
    ['a second before it', '2024-01-15T09:59:59.000Z', 1_000],
    ['an hour before it (clocks disagree)', '2024-01-15T09:00:00.000Z', 1_000],
    ['not a time', 'garbage', 1_000],
  ])('given a write timed %s, when retried, then it waits until the clock has passed the fence', (_n, time, ms) => {
    expect(fenced(time, '2024-01-15T10:00:00.000Z').retryDelayMs).toBe(ms);
  });

  it('given a write timed after the fence (a clock that moved on meanwhile), when retried, then at once', () => {
    expect(fenced('2024-01-15T10:00:00.010Z', '2024-01-15T10:00:00.000Z').retryDelayMs).toBe(1);
  });
});

describe('isRetryableWrite', () => {
  it.each([
    ['a fenced write', new FencedWriteError('2024-01-15T10:00:00.000Z', new Date(0)), true],
    ['a lost version race', { code: '23505', constraint: 'events_stream_id_stream_version_key' }, true],
    ['a deadlock', { code: '40P01' }, true],
    ['another error', new Error('connection lost'), false],
  ])('given %s, when classified, then %s', (_name, error, retryable) => {
    expect(isRetryableWrite(error)).toBe(retryable);
  });
});
