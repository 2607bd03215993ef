import { setTimeout as sleep } from 'node:timers/promises';
import { DIGEST, type DigestEntry, type DigestNode } from '@lx/contracts';
import { type LxApiClient, MIRROR_RESOURCE_NAMES, type MirrorResource } from '../api/lx-api.client';
import { combineNodes, MAX_DIGEST_DEPTH } from '../digest/mirror-digest';
import type { MirrorStore } from '../store/mirror-store';

/** One id the mirror holds differently from the operator: its version on each side (absent: not there). */
export interface DriftedId {
  readonly resource: MirrorResource;
  readonly id: string;
  readonly server?: number;
  readonly mirror?: number;
}

export interface DriftReport {
  readonly drifted: readonly DriftedId[];
  /** API requests the comparison made (the digest's point: few, whatever the mirror's size). */
  readonly requests: number;
  readonly counts: Record<MirrorResource, { server: number; mirror: number }>;
}

/**
 * A node holding at most this many entries on either side is compared entry by entry rather than descended: the most
 * one entries request lists. Three-digit nodes hold about 2,400 locations at 10,000,000, so the descent is the root and
 * then, per drifted id, one entries request.
 */
export const ENTRY_THRESHOLD = DIGEST.maxEntries;
/**
 * Levels one digest request descends: three (4,096 children at most), which the service answers from its stored
 * nodes below the root; deeper ones it groups from rows (docs/digest.md, costs).
 */
const LEVELS_PER_REQUEST = DIGEST.maxDepth;

/**
 * `lx-sync verify`: compares the mirror with the operator's digest (docs/digest.md) and descends only into the nodes
 * that differ, down to nodes small enough to compare entry by entry; so a handful of drifted ids among millions costs
 * about one request each. A difference is confirmed after `confirmDelayMs` (the leaves compared again), so that a change in
 * flight (a webhook on its way, the read model a little behind) is not reported as drift.
 */
export class VerifyMirror {
  constructor(
    private readonly api: LxApiClient,
    private readonly store: MirrorStore,
  ) {}

  async execute(options: { confirmDelayMs: number }): Promise<DriftReport> {
    const before = this.api.requests.api;
    const counts = {} as DriftReport['counts'];
    let leaves: { resource: MirrorResource; prefix: string }[] = [];
    for (const resource of MIRROR_RESOURCE_NAMES) {
      const found = await this.differingLeaves(resource);
      counts[resource] = found.counts;
      leaves.push(...found.leaves.map((prefix) => ({ resource, prefix })));
    }
    let drifted = await this.compareLeaves(leaves);
    if (drifted.length > 0 && options.confirmDelayMs > 0) {
      await sleep(options.confirmDelayMs);
      const first = new Set(drifted.map((item) => `${item.resource}/${item.id}`));
      leaves = leaves.filter((leaf) =>
        drifted.some((item) => item.resource === leaf.resource && item.leaf === leaf.prefix),
      );
      drifted = (await this.compareLeaves(leaves)).filter((item) => first.has(`${item.resource}/${item.id}`));
    }
    return {
      drifted: drifted.map(({ leaf: _leaf, ...item }) => item),
      requests: this.api.requests.api - before,
      counts,
    };
  }

  /** The prefixes of the nodes to compare entry by entry. */
  private async differingLeaves(
    resource: MirrorResource,
  ): Promise<{ leaves: string[]; counts: { server: number; mirror: number } }> {
    const server = await this.api.digestNode(resource, '', LEVELS_PER_REQUEST);
    const localChildren = await this.store.digestChildren(resource, '', LEVELS_PER_REQUEST);
    const local = combineNodes('', localChildren);
    const counts = { server: server.count, mirror: local.count };
    if (server.count === local.count && server.hash === local.hash) return { leaves: [], counts };
    if (Math.max(server.count, local.count) <= ENTRY_THRESHOLD) return { leaves: [''], counts };
    const leaves: string[] = [];
    const queue = differingChildren(server.children, localChildren);
    while (queue.length > 0) {
      const { prefix, server: serverCount, mirror: mirrorCount } = queue.shift()!;
      if (Math.max(serverCount, mirrorCount) <= ENTRY_THRESHOLD || prefix.length >= MAX_DIGEST_DEPTH) {
        leaves.push(prefix);
        continue;
      }
      const depth = Math.min(LEVELS_PER_REQUEST, MAX_DIGEST_DEPTH - prefix.length);
      const serverNode = await this.api.digestNode(resource, prefix, depth);
      queue.push(...differingChildren(serverNode.children, await this.store.digestChildren(resource, prefix, depth)));
    }
    return { leaves, counts };
  }

  /** The ids whose versions differ in the given leaves (an id on one side only included). */
  private async compareLeaves(
    leaves: readonly { resource: MirrorResource; prefix: string }[],
  ): Promise<(DriftedId & { leaf: string })[]> {
    const drifted: (DriftedId & { leaf: string })[] = [];
    for (const { resource, prefix } of leaves) {
      const server = (await this.api.digestEntries(resource, prefix)).entries;
      const mirror = await this.store.entries(resource, prefix);
      for (const item of diffEntries(server, mirror)) drifted.push({ resource, leaf: prefix, ...item });
    }
    return drifted;
  }
}

/** The children that differ, with each side's count (0: absent on that side). */
export function differingChildren(
  server: readonly DigestNode[],
  mirror: readonly DigestNode[],
): { prefix: string; server: number; mirror: number }[] {
  const local = new Map(mirror.map((node) => [node.prefix, node]));
  const remote = new Map(server.map((node) => [node.prefix, node]));
  const prefixes = [...new Set([...remote.keys(), ...local.keys()])].sort();
  return prefixes
    .filter((prefix) => {
      const a = remote.get(prefix);
      const b = local.get(prefix);
      return a?.count !== b?.count || a?.hash !== b?.hash;
    })
    .map((prefix) => ({ prefix, server: remote.get(prefix)?.count ?? 0, mirror: local.get(prefix)?.count ?? 0 }));
}

/** Entries whose version differs between the two sides, or that one side lacks; by id. */
export function diffEntries(
  server: readonly DigestEntry[],
  mirror: readonly DigestEntry[],
): { id: string; server?: number; mirror?: number }[] {
  const local = new Map(mirror.map((entry) => [entry.id, entry.version]));
  const remote = new Map(server.map((entry) => [entry.id, entry.version]));
  return [...new Set([...remote.keys(), ...local.keys()])]
    .sort()
    .filter((id) => remote.get(id) !== local.get(id))
    .map((id) => ({
      id,
      ...(remote.has(id) ? { server: remote.get(id)! } : {}),
      ...(local.has(id) ? { mirror: local.get(id)! } : {}),
    }));
}
