import {
  comparePositions,
  decodeChangeCursor,
  encodeChangeCursor,
  expiryOf,
  type ChangePosition,
} from './change-cursor';

const position: ChangePosition = {
  epoch: '0123456789abcdef',
  txId: '18446744073709551615',
  seq: '9223372036854775807',
};
const encoded = (document: unknown) => Buffer.from(JSON.stringify(document)).toString('base64url');

describe('change cursor', () => {
  it('given a position, when encoded and decoded, then it is the same position', () => {
    expect(decodeChangeCursor(encodeChangeCursor(position))).toEqual(position);
    const start = { epoch: 'ffffffffffffffff', txId: '0', seq: '0' };
    expect(decodeChangeCursor(encodeChangeCursor(start))).toEqual(start);
  });

  it('given a position, when encoded, then the cursor is URL-safe text without padding', () => {
    expect(encodeChangeCursor(position)).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'abc+/='],
    ['not JSON', Buffer.from('v1:abc').toString('base64url')],
    ['JSON but not an object', encoded(42)],
    ['null', encoded(null)],
    ['another format', encoded({ v: 2, e: position.epoch, t: '1', s: '1' })],
    ['an epoch in upper case', encoded({ v: 1, e: '0123456789ABCDEF', t: '1', s: '1' })],
    ['a short epoch', encoded({ v: 1, e: '0123', t: '1', s: '1' })],
    ['a number instead of decimal text', encoded({ v: 1, e: position.epoch, t: 1, s: '1' })],
    ['a negative sequence', encoded({ v: 1, e: position.epoch, t: '1', s: '-1' })],
    ['leading zeros', encoded({ v: 1, e: position.epoch, t: '01', s: '1' })],
    ['a transaction id beyond xid8', encoded({ v: 1, e: position.epoch, t: '18446744073709551616', s: '1' })],
    ['a sequence beyond bigint', encoded({ v: 1, e: position.epoch, t: '1', s: '9223372036854775808' })],
    ['a field missing', encoded({ v: 1, e: position.epoch, t: '1' })],
    ['far too long', 'A'.repeat(201)],
  ])('given %s, when decoded, then it is refused', (_, cursor) => {
    expect(decodeChangeCursor(cursor)).toBeUndefined();
  });

  it.each([
    [{ txId: '9', seq: '100' }, { txId: '10', seq: '1' }, -1],
    [{ txId: '10', seq: '2' }, { txId: '10', seq: '10' }, -1],
    [{ txId: '10', seq: '10' }, { txId: '10', seq: '10' }, 0],
    [{ txId: '18446744073709551615', seq: '0' }, { txId: '18446744073709551614', seq: '9' }, 1],
  ])('given %j and %j, when compared, then %d (numerically, transaction first)', (a, b, expected) => {
    expect(comparePositions(a, b)).toBe(expected);
  });
});

describe('expiryOf', () => {
  const feed = { epoch: 'aaaaaaaaaaaaaaaa', purged: { txId: '100', seq: '50' } };
  const at = (txId: string, seq: string, epoch = feed.epoch) => ({ epoch, txId, seq });

  it.each([
    ['at the purge position', at('100', '50'), undefined],
    ['after it in the same transaction', at('100', '51'), undefined],
    ['in a later transaction', at('101', '1'), undefined],
    ['before it in the same transaction', at('100', '49'), 'retention'],
    ['in an earlier transaction', at('99', '1000'), 'retention'],
    ['of another epoch, even ahead', at('500', '1', 'bbbbbbbbbbbbbbbb'), 'epoch'],
  ])('given a cursor %s, when checked, then %s', (_, cursor, expected) => {
    expect(expiryOf(cursor, feed)).toBe(expected);
  });
});
