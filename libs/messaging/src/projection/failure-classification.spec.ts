import { classifyFailure, describeFailure } from './failure-classification';
import { PermanentProjectionError } from './projection';

const pgError = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('classifyFailure', () => {
  it.each([
    ['21000 ON CONFLICT DO UPDATE affecting a row twice', pgError('21000'), 'permanent'],
    ['22003 numeric value out of range', pgError('22003'), 'permanent'],
    ['22P02 invalid text representation', pgError('22P02'), 'permanent'],
    ['23514 check violation', pgError('23514'), 'permanent'],
    ['a PermanentProjectionError', new PermanentProjectionError('impossible'), 'permanent'],
    ['42P01 undefined table (a migration is running)', pgError('42P01'), 'transient'],
    ['57P01 admin shutdown', pgError('57P01'), 'transient'],
    ['08006 connection failure', pgError('08006'), 'transient'],
    ['40P01 deadlock', pgError('40P01'), 'transient'],
    ['a lost connection without code', new Error('Connection terminated unexpectedly'), 'transient'],
    ['a Kafka error with a numeric code', Object.assign(new Error('broker'), { code: 7 }), 'transient'],
    ['a thrown string', 'boom', 'transient'],
  ])('given %s, when classified, then it is %s', (_case, error, kind) => {
    expect(classifyFailure(error)).toBe(kind);
  });
});

describe('describeFailure', () => {
  it('given a database error, when described, then the SQLSTATE is named', () => {
    expect(describeFailure(pgError('23514', 'violates check constraint'))).toBe(
      'violates check constraint (SQLSTATE 23514)',
    );
  });
});
