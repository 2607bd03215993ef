import type { QueryRunner } from 'typeorm';
import { EventLog } from './event-log';

const RECORDED = new Date('2024-01-15T10:00:00.000Z');

function eventRow(tx: string, position: string, type = 'LOCATION_UPDATED') {
  return {
    tx,
    position,
    stream_id: `stream-${position}`,
    stream_version: 2,
    event_type: type,
    payload: `{"n":${position}}`,
    correlation_id: position === '1' ? 'request-1' : null,
    recorded_at: RECORDED,
  };
}

/** A runner answering each statement with the next of `answers`, recording what it was sent. */
function scriptedRunner(...answers: unknown[]) {
  const statements: { sql: string; parameters: unknown[] }[] = [];
  const runner = {
    query: (sql: string, parameters: unknown[] = []) => {
      statements.push({ sql, parameters });
      return Promise.resolve(answers.shift() ?? []);
    },
  } as unknown as QueryRunner;
  return { runner, statements };
}

const CHECKPOINT_ROW = [{ txId: '100', position: '7', ahead: false }];

describe('EventLog', () => {
  it('given a checkpoint, when read, then the events after it become messages with their topic and headers', async () => {
    const { runner, statements } = scriptedRunner(CHECKPOINT_ROW, [eventRow('101', '1'), eventRow('102', '12')]);
    const log = new EventLog();
    await log.resume(runner);

    const batch = await log.read(runner, 50);

    expect(statements[1]!.parameters).toEqual(['100', '7', 50]);
    expect(statements[1]!.sql).toMatch(/ORDER BY e\.tx_id, e\.global_position/);
    expect(batch.messages).toEqual([
      {
        topic: 'location.events.v1',
        key: 'stream-1',
        value: '{"n":1}',
        headers: { 'lx-aggregate-version': '2', 'lx-correlation-id': 'request-1' },
        createdAt: RECORDED,
      },
      {
        topic: 'location.events.v1',
        key: 'stream-12',
        value: '{"n":12}',
        headers: { 'lx-aggregate-version': '2' },
        createdAt: RECORDED,
      },
    ]);
    expect(batch.end).toEqual({ txId: '102', position: '12' });
  });

  it('given a published batch, when confirmed, then the checkpoint moves from where it was, and reads go on from there', async () => {
    const { runner, statements } = scriptedRunner(CHECKPOINT_ROW, [eventRow('101', '8')], [[], 1], []);
    const log = new EventLog();
    await log.resume(runner);

    await log.confirm(runner, await log.read(runner, 10));
    await log.read(runner, 10);

    expect(statements[2]!.parameters).toEqual(['100', '7', '101', '8']);
    expect(statements[3]!.parameters.slice(0, 2)).toEqual(['101', '8']);
  });

  it('given a batch read and not yet confirmed, when the next is read after it, then it starts at its end and the checkpoint stays', async () => {
    const { runner, statements } = scriptedRunner(
      CHECKPOINT_ROW,
      [eventRow('101', '8')],
      [eventRow('102', '9')],
      [[], 1],
    );
    const log = new EventLog();
    await log.resume(runner);

    const first = await log.read(runner, 10);
    const second = await log.read(runner, 10, first);
    await log.confirm(runner, first);

    expect(statements[2]!.parameters).toEqual(['101', '8', 10]);
    expect(second.end).toEqual({ txId: '102', position: '9' });
    expect(statements[3]!.parameters).toEqual(['100', '7', '101', '8']);
  });

  it('given a checkpoint another relay moved meanwhile, when confirmed, then it fails and reads only after a new resume', async () => {
    const { runner } = scriptedRunner(CHECKPOINT_ROW, [eventRow('101', '8')], [[], 0]);
    const log = new EventLog();
    await log.resume(runner);

    await expect(log.confirm(runner, await log.read(runner, 10))).rejects.toThrow(/moved by another relay/);
    await expect(log.read(runner, 10)).rejects.toThrow(/only after resume/);
  });

  it('given nothing to publish, when read, then the batch is empty and says when the oldest waiting event was recorded', async () => {
    const { runner, statements } = scriptedRunner(CHECKPOINT_ROW, [], [{ recorded_at: RECORDED }]);
    const log = new EventLog();
    await log.resume(runner);

    const batch = await log.read(runner, 10);

    expect(batch).toEqual({ messages: [], end: undefined, oldestWaiting: RECORDED });
    expect(statements[2]!.sql).not.toMatch(/pg_snapshot_xmin/);
    await log.confirm(runner, batch);
    expect(statements).toHaveLength(3);
  });

  it('given a checkpoint ahead of the cluster (a restore into another cluster), when resumed, then it refuses to read', async () => {
    const { runner } = scriptedRunner([{ txId: '900', position: '7', ahead: true }]);

    await expect(new EventLog().resume(runner)).rejects.toThrow(/ahead of this PostgreSQL cluster/);
  });

  it('given an event of a type without a topic, when read, then it fails naming the event', async () => {
    const { runner } = scriptedRunner(CHECKPOINT_ROW, [eventRow('101', '9', 'NOT_A_TYPE')]);
    const log = new EventLog();
    await log.resume(runner);

    await expect(log.read(runner, 10)).rejects.toThrow('event at position 9 (stream stream-9) has type NOT_A_TYPE');
  });

  it('given no checkpoint row, when resumed, then it fails instead of starting anywhere', async () => {
    const { runner } = scriptedRunner([]);

    await expect(new EventLog().resume(runner)).rejects.toThrow(/relay_checkpoint has no row/);
  });
});
