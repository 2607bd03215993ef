import { DIGEST_HASH, type DigestNode, digestBucket, digestEntryHash, formatDigestHash } from '@lx/contracts';

/** The deepest node of the digest tree: a prefix of 8 hex digits. */
export const MAX_DIGEST_DEPTH = DIGEST_HASH.maxPrefixLength;

/** What the mirror stores with each row to compute its digest without rehashing: bucket prefix and entry hash. */
export function digestColumnsOf(id: string, version: number): { bucket: string; hash: string } {
  return {
    bucket: digestBucket(id).slice(0, MAX_DIGEST_DEPTH),
    hash: formatDigestHash(digestEntryHash(id, version)),
  };
}

/** Folds rows (bucket, entry hash) into the nodes `length` hex digits long, ordered by prefix. */
export class DigestFolder {
  private readonly nodes = new Map<string, { count: number; high: number; low: number }>();

  constructor(private readonly length: number) {}

  add(bucket: string, hash: string): void {
    const prefix = bucket.slice(0, this.length);
    let node = this.nodes.get(prefix);
    if (node === undefined) {
      node = { count: 0, high: 0, low: 0 };
      this.nodes.set(prefix, node);
    }
    // XOR of 64-bit values as two 32-bit halves: exact, and far cheaper than a BigInt per row.
    node.count += 1;
    node.high = (node.high ^ parseInt(hash.slice(0, 8), 16)) >>> 0;
    node.low = (node.low ^ parseInt(hash.slice(8, 16), 16)) >>> 0;
  }

  result(): DigestNode[] {
    return [...this.nodes.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([prefix, node]) => ({
        prefix,
        count: node.count,
        hash: node.high.toString(16).padStart(8, '0') + node.low.toString(16).padStart(8, '0'),
      }));
  }
}

/** The node made of the given nodes (a parent from its children). */
export function combineNodes(prefix: string, nodes: readonly DigestNode[]): DigestNode {
  const folder = new DigestFolder(prefix.length);
  let count = 0;
  for (const node of nodes) {
    folder.add(prefix, node.hash);
    count += node.count;
  }
  return { prefix, count, hash: folder.result()[0]?.hash ?? DIGEST_HASH.emptyHash };
}
