import { isRecord } from './is-record';

describe('isRecord', () => {
  it.each([{}, { a: 1 }, Object.create(null) as object])(
    'given the object %p, when checked, then it is a record',
    (value) => expect(isRecord(value)).toBe(true),
  );

  it.each([null, undefined, [], [1], 'a', 0, true])('given %p, when checked, then it is no record', (value) =>
    expect(isRecord(value)).toBe(false),
  );
});
