/**
 * A position in the change feed: the feed's generation (epoch) and one row's place in the feed's order, the id of the
 * transaction that inserted it (xid8) and its sequence number. Rows are read in (txId, seq) order, and only once
 * every transaction below them has ended, so everything that can ever appear after a position is read after it.
 */
export interface ChangePosition {
  /** The feed's generation: a rebuilt feed has another, and positions of the old one mean nothing in it. */
  epoch: string;
  /** Decimal xid8 (0 … 2^64 − 1). */
  txId: string;
  /** Decimal bigint (0 … 2^63 − 1). */
  seq: string;
}

/** The cursor format's version, inside the cursor: a later format can still read (or refuse) this one. */
const FORMAT = 1;
const EPOCH = /^[0-9a-f]{16}$/;
const DECIMAL = /^(0|[1-9]\d{0,19})$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const MAX_XID8 = 2n ** 64n - 1n;
const MAX_BIGINT = 2n ** 63n - 1n;
/** Longer than any cursor this code writes; a longer one is refused before decoding. */
const MAX_LENGTH = 200;

/** The opaque text of a position: base64url of a small JSON document that names its format. */
export function encodeChangeCursor(position: ChangePosition): string {
  const document = JSON.stringify({ v: FORMAT, e: position.epoch, t: position.txId, s: position.seq });
  return Buffer.from(document, 'utf8').toString('base64url');
}

/** The position a cursor holds; undefined when it is not one this feed wrote (malformed, tampered, other format). */
export function decodeChangeCursor(cursor: string): ChangePosition | undefined {
  if (cursor.length > MAX_LENGTH || !BASE64URL.test(cursor)) return undefined;
  let document: unknown;
  try {
    document = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof document !== 'object' || document === null) return undefined;
  const { v, e, t, s } = document as Record<string, unknown>;
  if (v !== FORMAT || typeof e !== 'string' || typeof t !== 'string' || typeof s !== 'string') return undefined;
  if (!EPOCH.test(e) || !DECIMAL.test(t) || !DECIMAL.test(s)) return undefined;
  if (BigInt(t) > MAX_XID8 || BigInt(s) > MAX_BIGINT) return undefined;
  return { epoch: e, txId: t, seq: s };
}

/** Negative, zero or positive as `a` is before, at or after `b` in the feed's order (same epoch assumed). */
export function comparePositions(a: Omit<ChangePosition, 'epoch'>, b: Omit<ChangePosition, 'epoch'>): number {
  const byTx = BigInt(a.txId) - BigInt(b.txId);
  if (byTx !== 0n) return byTx < 0n ? -1 : 1;
  const bySeq = BigInt(a.seq) - BigInt(b.seq);
  return bySeq === 0n ? 0 : bySeq < 0n ? -1 : 1;
}

/**
 * Why a cursor can no longer be read from, if it cannot: it is of another epoch (the feed was reset since), or behind
 * the position the feed has been purged up to (some changes after it are gone). A cursor at the purge position lost
 * nothing: the purge deleted it and what came before, never what follows.
 */
export function expiryOf(
  cursor: ChangePosition,
  feed: { epoch: string; purged: Omit<ChangePosition, 'epoch'> },
): 'epoch' | 'retention' | undefined {
  if (cursor.epoch !== feed.epoch) return 'epoch';
  return comparePositions(cursor, feed.purged) < 0 ? 'retention' : undefined;
}
