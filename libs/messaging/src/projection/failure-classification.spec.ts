import { classifyFailure, describeFailure } from './failure-classification';
import { PermanentProjectionError } from './projection';

const pgError = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('classifyFailure', () => {
  // The titles name the case and the kind only: an Error in a title would put its stack (with the sandbox path) into
  // the test name, which then differs between Stryker's sandboxes, and Stryker runs no test for the mutant.
  it.each<[string, 'permanent' | 'transient', () => unknown]>([
    ['21000 ON CONFLICT DO UPDATE affecting a row twice', 'permanent', () => pgError('21000')],
    ['22003 numeric value out of range', 'permanent', () => pgError('22003')],
    ['22P02 invalid text representation', 'permanent', () => pgError('22P02')],
    ['23514 check violation', 'permanent', () => pgError('23514')],
    ['a PermanentProjectionError', 'permanent', () => new PermanentProjectionError('impossible')],
    ['a plain object with an integrity SQLSTATE', 'permanent', () => ({ code: '23505' })],
    ['42P01 undefined table (a migration is running)', 'transient', () => pgError('42P01')],
    ['57P01 admin shutdown', 'transient', () => pgError('57P01')],
    ['08006 connection failure', 'transient', () => pgError('08006')],
    ['40P01 deadlock', 'transient', () => pgError('40P01')],
    ['a lost connection without code', 'transient', () => new Error('Connection terminated unexpectedly')],
    ['a Kafka error with a numeric code', 'transient', () => Object.assign(new Error('broker'), { code: 7 })],
    ['a numeric code that reads like a SQLSTATE', 'transient', () => Object.assign(new Error('odd'), { code: 23514 })],
    ['a six-character code starting with an integrity class', 'transient', () => pgError('230001')],
    ['a six-character code ending with an integrity class', 'transient', () => pgError('X23514')],
    ['a four-character code of an integrity class', 'transient', () => pgError('2351')],
    ['a lower-case code of an integrity class', 'transient', () => pgError('23p01')],
    ['a function carrying an integrity code', 'transient', () => Object.assign(() => undefined, { code: '23514' })],
    ['a thrown string', 'transient', () => 'boom'],
    ['a thrown null', 'transient', () => null],
    ['a thrown undefined', 'transient', () => undefined],
  ])('given %s, when classified, then it is %s', (_case, kind, error) => {
    expect(classifyFailure(error())).toBe(kind);
  });
});

describe('describeFailure', () => {
  it('given a database error, when described, then the SQLSTATE is named', () => {
    expect(describeFailure(pgError('23514', 'violates check constraint'))).toBe(
      'violates check constraint (SQLSTATE 23514)',
    );
  });

  it('given an error without a code, when described, then it is its message alone', () => {
    expect(describeFailure(new Error('Connection terminated unexpectedly'))).toBe('Connection terminated unexpectedly');
  });

  it('given an error with a numeric code, when described, then it is its message alone', () => {
    expect(describeFailure(Object.assign(new Error('broker'), { code: 7 }))).toBe('broker');
  });

  it.each<[string, unknown, string]>([
    ['a thrown string', 'boom', 'boom'],
    ['a thrown null', null, 'null'],
    ['a plain object with a code', { code: '23514', message: 'not an Error' }, '[object Object]'],
  ])('given %s, when described, then it is the value as a string', (_case, error, described) => {
    expect(describeFailure(error)).toBe(described);
  });
});
