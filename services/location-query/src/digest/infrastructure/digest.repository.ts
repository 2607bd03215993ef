import { Inject, Injectable } from '@nestjs/common';
import {
  type DigestEntriesReply,
  type DigestNodeReply,
  type DigestPosition,
  type DigestResource,
  formatDigestHash,
  TOPICS,
} from '@lx/contracts';
import { ReadPool, type ScanSession } from '@lx/platform';
import { LIVE_TABLES } from '../../read-model/read-model-tables';
import { DIGEST_OPTIONS, type DigestOptions } from '../digest-options';

/** Hex digits of the nodes stored in digest_nodes (see the AddReadModelDigest migration). */
export const STORED_NODE_DIGITS = 3;
const KEY_BITS = 32;

const SOURCES: Record<DigestResource, { table: string; live: string; topic: string }> = {
  locations: { table: LIVE_TABLES.locations, live: '', topic: TOPICS.locationEvents.name },
  locationGroups: {
    table: LIVE_TABLES.locationGroups,
    live: 'AND NOT deleted',
    topic: TOPICS.locationGroupEvents.name,
  },
  addressGroups: { table: LIVE_TABLES.addressGroups, live: 'AND NOT deleted', topic: TOPICS.addressGroupEvents.name },
};

/** A node as computed: its prefix, count and hash (16 hex digits). */
export interface ComputedNode {
  prefix: string;
  count: number;
  hash: string;
}

type Snapshot = Pick<DigestNodeReply, 'position' | 'computedAt'>;

/**
 * Reads of the digest, each in one REPEATABLE READ, READ ONLY transaction: the node, its children or entries and the
 * position come from one snapshot, so they agree with each other (and the position says which changes they hold).
 * Each is a scan of the RSP-facing ReadPool (statement timeout, one of its scan slots).
 *
 * Where a node comes from: nodes and children up to 3 hex digits deep are sums of the stored nodes (at most 4,096 per
 * resource, times the slots); deeper ones are grouped from the resources' rows by the digest_key index, which holds
 * the rows of the prefix in one range (an index-only scan of N / 16^length rows).
 */
@Injectable()
export class DigestRepository {
  constructor(
    private readonly pool: ReadPool,
    @Inject(DIGEST_OPTIONS) private readonly options: DigestOptions,
  ) {}

  /** The node of `prefix` and its non-empty children `depth` levels below, ordered by prefix. */
  async node(resource: DigestResource, prefix: string, depth: number): Promise<DigestNodeReply> {
    return this.inSnapshot(resource, async (session, snapshot) => {
      const children = await this.children(session, resource, prefix, prefix.length + depth);
      return { resource, prefix, ...total(children), children, ...snapshot };
    });
  }

  /** The node of `prefix` and, unless it holds more than `limit`, its entries ordered by id. */
  async entries(
    resource: DigestResource,
    prefix: string,
    limit: number,
  ): Promise<DigestEntriesReply | { resource: DigestResource; prefix: string; count: number; tooLarge: true }> {
    return this.inSnapshot(resource, async (session, snapshot) => {
      const node = total(await this.children(session, resource, prefix, prefix.length));
      if (node.count > limit) return { resource, prefix, count: node.count, tooLarge: true as const };
      const { table, live } = SOURCES[resource];
      const [lo, hi] = keyRange(prefix);
      const { rows } = await session.query<{ id: string; version: number }>(
        `SELECT id::text AS id, version FROM ${table} WHERE digest_key BETWEEN $1 AND $2 ${live} ORDER BY id`,
        [lo, hi],
      );
      return { resource, prefix, ...node, entries: rows, ...snapshot };
    });
  }

  /** The non-empty nodes `childLength` hex digits deep below `prefix` (the node itself when as long), by prefix. */
  private async children(
    session: ScanSession,
    resource: DigestResource,
    prefix: string,
    childLength: number,
  ): Promise<ComputedNode[]> {
    const value = prefix === '' ? 0 : parseInt(prefix, 16);
    let rows: ChildRow[];
    if (childLength <= STORED_NODE_DIGITS) {
      const span = 16 ** (STORED_NODE_DIGITS - prefix.length);
      ({ rows } = await session.query<ChildRow>(
        `SELECT node >> $4 AS child, sum(count)::text AS count, bit_xor(hash)::text AS hash
           FROM ${LIVE_TABLES.digestNodes}
          WHERE resource = $1 AND node BETWEEN $2 AND $3
          GROUP BY 1 HAVING sum(count) > 0 ORDER BY 1`,
        [resource, value * span, (value + 1) * span - 1, 4 * (STORED_NODE_DIGITS - childLength)],
      ));
    } else {
      const { table, live } = SOURCES[resource];
      const [lo, hi] = keyRange(prefix);
      ({ rows } = await session.query<ChildRow>(
        `SELECT digest_key >> $3 AS child, count(*)::text AS count, bit_xor(digest_hash)::text AS hash
           FROM ${table} WHERE digest_key BETWEEN $1 AND $2 ${live}
          GROUP BY 1 ORDER BY 1`,
        [lo, hi, KEY_BITS - 4 * childLength],
      ));
    }
    return rows.map((row) => ({
      prefix: childLength === 0 ? '' : Number(row.child).toString(16).padStart(childLength, '0'),
      count: Number(row.count),
      hash: formatDigestHash(BigInt(row.hash)),
    }));
  }

  private async inSnapshot<T>(
    resource: DigestResource,
    read: (session: ScanSession, snapshot: Snapshot) => Promise<T>,
  ): Promise<T> {
    return this.pool.scan(
      async (session) => {
        // The first statement takes the snapshot: the position and everything read after it belong together.
        const { rows } = await session.query<{ partition: number; next_offset: string; computed_at: string }>(
          `SELECT o.partition, o.next_offset::text AS next_offset,
                  to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS computed_at
             FROM (SELECT 1) AS now
             LEFT JOIN consumer_offsets o ON o.group_id = $1 AND o.topic = $2
            ORDER BY o.partition`,
          [this.options.projectionGroupId, SOURCES[resource].topic],
        );
        const offsets: Record<string, string> = {};
        for (const row of rows) if (row.next_offset !== null) offsets[String(row.partition)] = row.next_offset;
        const position: DigestPosition = { [SOURCES[resource].topic]: offsets };
        return read(session, { position, computedAt: rows[0]!.computed_at });
      },
      { snapshot: true },
    );
  }
}

/** A child node as the digest's statements return it. */
interface ChildRow {
  child: number | string;
  count: string;
  hash: string;
}

/** The digest_key range (first 32 bits of the bucket) of the resources whose bucket starts with `prefix`. */
function keyRange(prefix: string): [number, number] {
  const span = 2 ** (KEY_BITS - 4 * prefix.length);
  const value = prefix === '' ? 0 : parseInt(prefix, 16);
  return [value * span, (value + 1) * span - 1];
}

/** A node from its children: every resource of a node is in exactly one child. */
function total(children: readonly ComputedNode[]): { count: number; hash: string } {
  let count = 0;
  let hash = 0n;
  for (const child of children) {
    count += child.count;
    hash ^= BigInt(`0x${child.hash}`);
  }
  return { count, hash: formatDigestHash(hash) };
}
