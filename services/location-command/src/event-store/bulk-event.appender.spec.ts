import type { EntityManager } from 'typeorm';
import { AggregateStateWriter } from './aggregate-state.writer';
import { BulkEventAppender, copyRowOf } from './bulk-event.appender';
import { EventEnvelopeFactory } from './event-envelope.factory';
import type { StreamAppend } from './event-store.types';
import { SequentialIds } from './testing/test-doubles';

const timestamp = '2024-01-15T10:00:00.000Z';

function locationAppend(streamId: string, fromVersion: number, notes: string): StreamAppend {
  return {
    streamId,
    streamType: 'location',
    fromVersion,
    events: [{ type: fromVersion === 0 ? 'LOCATION_CREATED' : 'LOCATION_UPDATED', data: { id: streamId, notes } }],
    index: {},
  };
}

/** Fakes for the write: a pg client that accepts any COPY, and a recording manager whose upsert writes every row. */
function writeFakes() {
  const log: string[] = [];
  const copied: string[] = [];
  const client = {
    query(copy: {
      submit(connection: unknown): void;
      handleCopyInResponse(connection: unknown): void;
      handleReadyForQuery(): void;
    }) {
      const connection = {
        query: (text: string) => log.push(text),
        sendCopyFromChunk: (chunk: Buffer) => copied.push(chunk.toString('utf8')),
        endCopyFrom: () => undefined,
      };
      copy.submit(connection);
      copy.handleCopyInResponse(connection);
      copy.handleReadyForQuery();
    },
  };
  const manager = {
    queryRunner: { databaseConnection: client },
    query: (sql: string, parameters: unknown[][]) => {
      log.push(sql.trim().split(/\s+/).slice(0, 3).join(' '));
      return Promise.resolve([{ written: parameters[0]!.length }]);
    },
  } as unknown as EntityManager;
  return { manager, log, copied };
}

function appender(): BulkEventAppender {
  return new BulkEventAppender(
    new EventEnvelopeFactory(new SequentialIds(), 'location-command'),
    new AggregateStateWriter(),
  );
}

describe('BulkEventAppender.prepare', () => {
  it('given location appends, when prepared, then each event is one COPY line with its version, id and envelope', () => {
    const bulk = appender().prepare([locationAppend('a', 0, 'one'), locationAppend('b', 3, 'two')], {
      timestamp,
      correlationId: 'request-1',
    });

    const lines = bulk.rows.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    expect(lines.slice(0, 2).map((line) => line.split('\t').slice(0, 5))).toEqual([
      ['a', 'location', '1', 'event-1', 'LOCATION_CREATED'],
      ['b', 'location', '4', 'event-2', 'LOCATION_UPDATED'],
    ]);
    expect(lines.map((line) => line.split('\t')[6]).slice(0, 2)).toEqual([timestamp, timestamp]);
    expect(lines.map((line) => line.split('\t')[7]).slice(0, 2)).toEqual(['request-1', 'request-1']);
    expect(JSON.parse(lines[0]!.split('\t')[5]!)).toMatchObject({ id: 'event-1', data: { id: 'a', notes: 'one' } });
    expect(bulk.eventIds).toEqual(['event-1', 'event-2']);
  });

  it('given data with tabs, newlines and backslashes, when prepared, then the envelope is escaped and stays one line', () => {
    const bulk = appender().prepare([locationAppend('a', 0, 'tab\there\nnew line \\ slash')], { timestamp });

    expect(bulk.rows.split('\n')).toHaveLength(2);
    expect(bulk.rows.split('\t')).toHaveLength(9);
    expect(bulk.rows.trimEnd().split('\t')[7]).toBe('\\N');
  });

  it('given events of locations and groups, when prepared, then one batch holds them all', () => {
    const group: StreamAppend = {
      streamId: 'g',
      streamType: 'locationGroup',
      fromVersion: 0,
      events: [{ type: 'LOCATION_GROUP_CREATED', data: { id: 'g' } }],
      index: {},
    };

    expect(appender().prepare([locationAppend('a', 0, 'x'), group], { timestamp }).eventIds).toHaveLength(2);
  });

  it('given no events, when prepared, then the batch is empty', () => {
    expect(appender().prepare([], { timestamp })).toMatchObject({ rows: '', eventIds: [] });
  });
});

describe('copyRowOf', () => {
  it('given an enveloped event, when encoded, then the columns are tab-separated in the events COPY order', () => {
    const append = locationAppend('a', 0, 'x');
    expect(
      copyRowOf(
        { append, version: 1, id: 'e', type: 'LOCATION_CREATED', payload: '{"a":"b\\\\c"}' },
        { timestamp, correlationId: 'r\t1' },
      ),
    ).toBe(`a\tlocation\t1\te\tLOCATION_CREATED\t{"a":"b\\\\\\\\c"}\t${timestamp}\tr\\t1\t\\N`);
  });

  it('given a trace context, when encoded, then it is the last column', () => {
    const event = {
      append: locationAppend('a', 0, 'x'),
      version: 1,
      id: 'e',
      type: 'LOCATION_CREATED' as const,
      payload: '{}',
    };
    const traceParent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    expect(copyRowOf(event, { timestamp }, traceParent)).toBe(
      `a\tlocation\t1\te\tLOCATION_CREATED\t{}\t${timestamp}\t\\N\t${traceParent}`,
    );
  });
});

describe('BulkEventAppender.write', () => {
  it('given a prepared batch, when written, then it upserts the states, then copies the events', async () => {
    const fakes = writeFakes();
    const bulkAppender = appender();
    const bulk = bulkAppender.prepare([locationAppend('a', 0, 'x')], { timestamp, correlationId: 'request-1' });

    await bulkAppender.write(fakes.manager, bulk);

    expect(fakes.log).toEqual([
      'WITH written AS',
      'COPY events (stream_id, stream_type, stream_version, event_id, event_type, payload, recorded_at, correlation_id, trace_parent) FROM STDIN',
    ]);
    expect(fakes.copied.join('')).toBe(bulk.rows);
  });

  it('given an empty batch, when written, then nothing is sent', async () => {
    const fakes = writeFakes();
    const bulkAppender = appender();

    await bulkAppender.write(fakes.manager, bulkAppender.prepare([], { timestamp }));

    expect(fakes.log).toEqual([]);
  });
});
