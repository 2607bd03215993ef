import { createHash } from 'node:crypto';

/**
 * The Merkle digest of the read model (docs/digest.md), as both sides compute it: location-query keeps it up to date,
 * an RSP computes the same numbers from its mirror and descends only into the nodes that differ.
 *
 * - bucket(id): lowercase hex of SHA-256 of the id's canonical text (lowercase, 36 characters with hyphens). Ids are
 *   time-ordered UUIDs, so their own leading digits would crowd recent resources into a few nodes; the hash spreads them.
 * - A node is a prefix of 0..8 lowercase hex digits ('' = the root) and holds the resources whose bucket starts with it.
 * - entryHash(id, version): the first 8 bytes of SHA-256 of `<id>:<version>` (version in decimal), an unsigned 64-bit
 *   big-endian number.
 * - A node's hash is the XOR of its resources' entry hashes (0 when empty), so one change updates each node on its path
 *   by XOR-ing out the old entry and XOR-ing in the new one, in any order.
 */
export const DIGEST_HASH = {
  /** Longest node prefix, in hex digits. */
  maxPrefixLength: 8,
  /** Hex digits of a node hash. */
  hashLength: 16,
  /** The hash of an empty node. */
  emptyHash: '0000000000000000',
} as const;

const MASK_64 = (1n << 64n) - 1n;
const HASH_HEX = /^[0-9a-f]{16}$/i;

/** The canonical text of an id: lower case (the 36-character form with hyphens is what ids already are). */
export function canonicalDigestId(id: string): string {
  return id.toLowerCase();
}

/** bucket(id): the 64 lowercase hex digits of SHA-256 of the id's canonical text; a node holds ids by its prefix. */
export function digestBucket(id: string): string {
  return createHash('sha256').update(canonicalDigestId(id), 'utf8').digest('hex');
}

/** entryHash(id, version): the first 8 bytes of SHA-256 of `<id>:<version>`, as an unsigned big-endian 64-bit number. */
export function digestEntryHash(id: string, version: number): bigint {
  if (!Number.isSafeInteger(version) || version < 0) {
    throw new RangeError(`version must be a non-negative integer, got ${version}`);
  }
  return createHash('sha256')
    .update(`${canonicalDigestId(id)}:${version}`, 'utf8')
    .digest()
    .readBigUInt64BE(0);
}

/** A node hash as the API writes it: 16 lowercase hex digits (the value taken modulo 2^64, so also for a signed bigint). */
export function formatDigestHash(hash: bigint): string {
  return (hash & MASK_64).toString(16).padStart(DIGEST_HASH.hashLength, '0');
}

/** The number a node hash of the API stands for (16 hex digits, either case). */
export function parseDigestHash(hex: string): bigint {
  if (!HASH_HEX.test(hex)) throw new RangeError(`a digest hash is 16 hex digits, got "${hex}"`);
  return BigInt(`0x${hex}`);
}

/** XOR of two node hashes written as 16 hex digits: the hash of the union of two disjoint sets of resources. */
export function xorHex(a: string, b: string): string {
  return formatDigestHash(parseDigestHash(a) ^ parseDigestHash(b));
}

/** One resource as the digest sees it. */
export interface DigestEntry {
  readonly id: string;
  readonly version: number;
}

/** A node's count and hash (16 hex digits). */
export interface DigestNode {
  readonly prefix: string;
  readonly count: number;
  readonly hash: string;
}

/** Whether a resource belongs to the node of this prefix (any case). */
export function digestNodeHolds(prefix: string, id: string): boolean {
  return digestBucket(id).startsWith(prefix.toLowerCase());
}

/** The node of `prefix` over some entries: those whose bucket starts with it, counted and XOR-ed. */
export function digestNodeHash(entries: Iterable<DigestEntry>, prefix = ''): DigestNode {
  const wanted = prefix.toLowerCase();
  let count = 0;
  let hash = 0n;
  for (const entry of entries) {
    if (!digestBucket(entry.id).startsWith(wanted)) continue;
    count += 1;
    hash ^= digestEntryHash(entry.id, entry.version);
  }
  return { prefix: wanted, count, hash: formatDigestHash(hash) };
}

/**
 * The node of `prefix` and its non-empty descendants exactly `depth` levels below, ordered by prefix: what
 * GET …/digest answers, computed from a list of (id, version) pairs (an RSP's mirror, or a test's export).
 */
export function digestTree(
  entries: Iterable<DigestEntry>,
  prefix = '',
  depth = 1,
): DigestNode & { children: DigestNode[] } {
  const wanted = prefix.toLowerCase();
  const childLength = wanted.length + depth;
  if (childLength > DIGEST_HASH.maxPrefixLength) {
    throw new RangeError(`prefix length + depth must be at most ${DIGEST_HASH.maxPrefixLength}`);
  }
  const children = new Map<string, { count: number; hash: bigint }>();
  let count = 0;
  let hash = 0n;
  for (const entry of entries) {
    const bucket = digestBucket(entry.id);
    if (!bucket.startsWith(wanted)) continue;
    const entryHash = digestEntryHash(entry.id, entry.version);
    count += 1;
    hash ^= entryHash;
    const childPrefix = bucket.slice(0, childLength);
    const child = children.get(childPrefix) ?? { count: 0, hash: 0n };
    child.count += 1;
    child.hash ^= entryHash;
    children.set(childPrefix, child);
  }
  return {
    prefix: wanted,
    count,
    hash: formatDigestHash(hash),
    children: [...children.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([childPrefix, child]) => ({ prefix: childPrefix, count: child.count, hash: formatDigestHash(child.hash) })),
  };
}
