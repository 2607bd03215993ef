import type { DigestResource } from '@lx/contracts';

/** What a write returns for the digest: the row's stored node (the bucket's first 12 bits) and entry hash. */
export const digestColumns = (alias: string) =>
  `(${alias}.digest_key >> 20)::int AS node, ${alias}.digest_hash::text AS digest_hash`;

export interface DigestRow {
  id: string;
  node: number;
  /** The entry hash as PostgreSQL's signed bigint, in decimal. */
  digest_hash: string;
  deleted?: boolean;
}

/** How one resource's stored nodes change in a transaction: per node, the count to add and the hash to XOR in. */
export class NodeDeltas {
  readonly byNode = new Map<number, { count: number; hash: bigint }>();

  add(row: DigestRow): void {
    this.change(row, 1);
  }

  remove(row: DigestRow): void {
    this.change(row, -1);
  }

  private change(row: DigestRow, count: number): void {
    const node = this.byNode.get(row.node) ?? { count: 0, hash: 0n };
    node.count += count;
    node.hash ^= BigInt(row.digest_hash);
    this.byNode.set(row.node, node);
  }
}

/** The node changes of a transaction, per resource. */
export class DigestDelta {
  private readonly resources = new Map<DigestResource, NodeDeltas>();

  of(resource: DigestResource): NodeDeltas {
    let deltas = this.resources.get(resource);
    if (deltas === undefined) {
      deltas = new NodeDeltas();
      this.resources.set(resource, deltas);
    }
    return deltas;
  }

  /** Per resource, the nodes that changed (a net no-op, as a version replaced by itself, is left out), by node. */
  changes(): [DigestResource, { node: number; count: number; hash: bigint }[]][] {
    return [...this.resources.entries()].map(([resource, deltas]) => [
      resource,
      [...deltas.byNode.entries()]
        .filter(([, delta]) => delta.count !== 0 || delta.hash !== 0n)
        .sort(([a], [b]) => a - b)
        .map(([node, delta]) => ({ node, ...delta })),
    ]);
  }
}
