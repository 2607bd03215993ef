import { type DomainError, NO_GROUPS, type Result, ValidationFailedError, VersionMismatchError } from '@lx/domain';
import { Clock, MetricsRegistry } from '@lx/platform';
import type { Decider, WriteRead } from './decider';
import { DeciderCommandHandler } from './decider-command.handler';
import type { EventStore } from './event-store';
import { FencedWriteError } from './event-store.errors';
import type { EventStoreTransaction } from './event-store.transaction';
import type { AppendContext, StoredStream, StreamAppend } from './event-store.types';

const NOW = new Date('2024-01-15T10:00:00.000Z');

class FixedClock extends Clock {
  now(): Date {
    return NOW;
  }
}

/** A counter aggregate: `add n` records one event unless n is 0; a negative n is refused. */
type CounterState = { total: number } | undefined;
type CounterEvent = { type: 'LOCATION_UPDATED'; data: { total: number } };
const COUNTER: Decider<CounterState, { add: number; seen: number }, CounterEvent> = {
  streamType: 'location',
  stateOf: (stream) => (stream === undefined ? undefined : (stream.data as { total: number })),
  currentVersion: (stream) => stream?.version ?? null,
  decide: ({ add }, state): Result<CounterEvent[], DomainError> =>
    add < 0
      ? { ok: false, error: new ValidationFailedError([{ field: 'add', rule: 'min', message: 'add must be >= 0' }]) }
      : {
          ok: true,
          value: add === 0 ? [] : [{ type: 'LOCATION_UPDATED', data: { total: (state?.total ?? 0) + add } }],
        },
  evolve: (_state, event) => event.data,
  index: (state) => ({ serviceabilityStatus: String(state?.total) }),
  references: (state) => ({ locationGroupIds: [`group-${state?.total}`], addressGroupIds: [] }),
};

function stream(version: number, total: number): StoredStream {
  return { streamId: 's', streamType: 'location', version, deleted: false, data: { total } };
}

/**
 * An event store whose unlocked read answers `fast`, whose one-statement append answers `appendAnswer` (or throws it),
 * and whose locked read (in a transaction) answers `locked`. Calls are recorded.
 */
function fakeStore(options: { fast: WriteRead; locked?: WriteRead; appendAnswer?: boolean | Error }) {
  const calls: string[] = [];
  const appendsIfCurrent: { append: StreamAppend; context: AppendContext; required: unknown }[] = [];
  const lockedAppends: StreamAppend[][] = [];
  const lockedReads: unknown[] = [];
  const transaction = {
    readForWrite: (streamId: string, named: unknown, readOptions: unknown) => {
      calls.push('locked read');
      lockedReads.push({ streamId, named, readOptions });
      return Promise.resolve(options.locked ?? options.fast);
    },
    append: (appends: StreamAppend[]) => {
      calls.push('locked append');
      lockedAppends.push(appends);
      return Promise.resolve();
    },
  } as unknown as EventStoreTransaction;
  const store = {
    readForWrite: () => {
      calls.push('read');
      return Promise.resolve(options.fast);
    },
    appendIfCurrent: (append: StreamAppend, context: AppendContext, required: unknown) => {
      calls.push('append if current');
      appendsIfCurrent.push({ append, context, required });
      const answer = options.appendAnswer ?? true;
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
    transaction: <T>(work: (transaction: EventStoreTransaction) => Promise<T>) => {
      calls.push('transaction');
      return work(transaction);
    },
  } as unknown as EventStore;
  return { store, calls, appendsIfCurrent, lockedAppends, lockedReads };
}

const read = (found?: StoredStream): WriteRead => ({
  stream: found,
  existingGroups: NO_GROUPS,
  referencingLocations: 0,
});

function handlerOn(store: EventStore, metrics = new MetricsRegistry()) {
  return new DeciderCommandHandler(store, new FixedClock(), metrics);
}

const add = (n: number, extra: { ifMatch?: string; countReferences?: boolean } = {}) => ({
  streamId: 's',
  correlationId: 'request-1',
  ...extra,
  command: ({ referencingLocations }: { referencingLocations: number }) => ({ add: n, seen: referencingLocations }),
});

async function contended(metrics: MetricsRegistry): Promise<number> {
  const metric = await metrics.registry.getSingleMetric('command_writes_contended_total')!.get();
  return metric.values.reduce((sum, value) => sum + value.value, 0);
}

describe('DeciderCommandHandler', () => {
  it('given an uncontended write, when executed, then one read and one conditional append, no transaction', async () => {
    const fake = fakeStore({ fast: read(stream(2, 5)) });

    const outcome = await handlerOn(fake.store).execute(COUNTER, add(3));

    expect(fake.calls).toEqual(['read', 'append if current']);
    expect(outcome).toEqual({
      state: { total: 8 },
      version: 3,
      existed: true,
      events: [{ type: 'LOCATION_UPDATED', data: { total: 8 } }],
    });
    expect(fake.appendsIfCurrent).toEqual([
      {
        append: {
          streamId: 's',
          streamType: 'location',
          fromVersion: 2,
          events: [{ type: 'LOCATION_UPDATED', data: { total: 8 } }],
          index: { serviceabilityStatus: '8' },
        },
        context: { timestamp: NOW.toISOString(), correlationId: 'request-1' },
        required: { locationGroupIds: ['group-8'], addressGroupIds: [] },
      },
    ]);
  });

  it('given a write that changes nothing, when executed, then it ends after the read', async () => {
    const fake = fakeStore({ fast: read(stream(2, 5)) });

    const outcome = await handlerOn(fake.store).execute(COUNTER, add(0));

    expect(fake.calls).toEqual(['read']);
    expect(outcome).toMatchObject({ state: { total: 5 }, version: 2, events: [] });
  });

  it('given a new stream, when executed, then it appends from version 0 and reports it did not exist', async () => {
    const fake = fakeStore({ fast: read() });

    const outcome = await handlerOn(fake.store).execute(COUNTER, add(1));

    expect(fake.appendsIfCurrent[0]!.append.fromVersion).toBe(0);
    expect(outcome).toMatchObject({ version: 1, existed: false });
  });

  it('given the stream moved before the append, when executed, then it decides again under locks, on the locked read', async () => {
    const fake = fakeStore({ fast: read(stream(2, 5)), locked: read(stream(3, 100)), appendAnswer: false });
    const metrics = new MetricsRegistry();

    const outcome = await handlerOn(fake.store, metrics).execute(COUNTER, add(1));

    expect(fake.calls).toEqual(['read', 'append if current', 'transaction', 'locked read', 'locked append']);
    expect(fake.lockedAppends[0]![0]).toMatchObject({ fromVersion: 3, events: [{ data: { total: 101 } }] });
    expect(outcome).toMatchObject({ state: { total: 101 }, version: 4 });
    expect(await contended(metrics)).toBe(1);
  });

  it.each([
    ['a write timed at the watermark fence', new FencedWriteError('2024-01-15T10:00:00.000Z', NOW)],
    [
      'a lost race on the stream version',
      Object.assign(new Error('duplicate key'), { code: '23505', constraint: 'events_stream_id_stream_version_key' }),
    ],
  ])('given %s, when appended, then it decides again under locks', async (_name, error) => {
    const fake = fakeStore({ fast: read(stream(2, 5)), appendAnswer: error });

    await handlerOn(fake.store).execute(COUNTER, add(1));

    expect(fake.calls).toEqual(['read', 'append if current', 'transaction', 'locked read', 'locked append']);
  });

  it('given another failure of the append, when executed, then it is thrown and not retried', async () => {
    const fake = fakeStore({ fast: read(stream(2, 5)), appendAnswer: new Error('connection lost') });

    await expect(handlerOn(fake.store).execute(COUNTER, add(1))).rejects.toThrow('connection lost');
    expect(fake.calls).toEqual(['read', 'append if current']);
  });

  it('given a write that counts references, when executed, then it takes the locked path at once and counts there', async () => {
    const fake = fakeStore({ fast: read(), locked: { ...read(stream(1, 1)), referencingLocations: 4 } });
    const decider = { ...COUNTER, streamType: 'locationGroup' as const };
    let seen: number | undefined;

    await handlerOn(fake.store).execute(decider, {
      ...add(1, { countReferences: true }),
      command: ({ referencingLocations }) => ({ add: 1, seen: (seen = referencingLocations) }),
    });

    expect(fake.calls).toEqual(['transaction', 'locked read', 'locked append']);
    expect(fake.lockedReads).toEqual([
      {
        streamId: 's',
        named: { locationGroupIds: [], addressGroupIds: [] },
        readOptions: { countReferences: 'locationGroup' },
      },
    ]);
    expect(seen).toBe(4);
  });

  it('given an If-Match that does not match, when executed, then VersionMismatchError and nothing is appended', async () => {
    const fake = fakeStore({ fast: read(stream(2, 5)) });

    await expect(handlerOn(fake.store).execute(COUNTER, add(1, { ifMatch: '"1"' }))).rejects.toBeInstanceOf(
      VersionMismatchError,
    );
    expect(fake.calls).toEqual(['read']);
  });

  it('given a command the rules refuse, when executed, then their error is thrown and nothing is appended', async () => {
    const fake = fakeStore({ fast: read(stream(2, 5)) });

    await expect(handlerOn(fake.store).execute(COUNTER, add(-1))).rejects.toBeInstanceOf(ValidationFailedError);
    expect(fake.calls).toEqual(['read']);
  });
});
