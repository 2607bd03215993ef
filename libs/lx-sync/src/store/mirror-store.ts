import type { DigestEntry, DigestNode } from '@lx/contracts';
import type { MirrorResource } from '../api/lx-api.client';

/** One location or group as the mirror holds it. */
export interface MirrorRow {
  readonly id: string;
  readonly version: number;
  /** A group deleted at the operator: kept as a tombstone (so an older event cannot bring it back), not in digests. */
  readonly deleted: boolean;
  /** The resource as the API serves it (JSON text). */
  readonly body: string;
}

/** Writes, inside one transaction of the mirror's database. */
export interface MirrorTransaction {
  /** Stores the row unless the mirror holds the same or a newer version; whether it did. */
  apply(resource: MirrorResource, row: MirrorRow): Promise<boolean>;
  /**
   * Stores the row if the mirror still holds version `held` of it (`undefined`: no row): a write that loses to a change
   * applied meanwhile changes nothing (repair: the API's answer replaces what was compared, nothing newer).
   */
  replace(resource: MirrorResource, row: MirrorRow, held: number | undefined): Promise<boolean>;
  /** Removes the row if the mirror still holds version `held` of it (repair: the operator has no such resource). */
  removeIf(resource: MirrorResource, id: string, held: number): Promise<boolean>;
  setState(key: string, value: string): Promise<void>;
  deleteState(key: string): Promise<void>;
  /** Records a webhook delivery id; false when it was recorded before (a repeat to acknowledge and skip). */
  claimDelivery(webhookId: string): Promise<boolean>;
}

/**
 * The mirror's database: PostgreSQL or SQLite, the same tables in both (`locations`, `location_groups`,
 * `address_groups` with id, version, deleted, bucket, hash and body; `lx_sync_state`; `lx_sync_deliveries`). Each row
 * carries its digest bucket (first 8 hex digits) and entry hash, computed when it is written, so a digest of the mirror
 * reads two short columns.
 */
export interface MirrorStore {
  readonly kind: 'postgres' | 'sqlite';
  /** Creates the tables if they are missing. */
  migrate(): Promise<void>;
  /** Runs the work in one transaction (serialised: one at a time for SQLite), committing when it resolves. */
  transaction<T>(work: (transaction: MirrorTransaction) => Promise<T>): Promise<T>;
  state(key: string): Promise<string | undefined>;
  /** The stored row of one id (tombstones included). */
  row(resource: MirrorResource, id: string): Promise<MirrorRow | undefined>;
  /** The live rows' digest nodes exactly `depth` hex digits below `prefix` (only the non-empty ones). */
  digestChildren(resource: MirrorResource, prefix: string, depth: number): Promise<DigestNode[]>;
  /** The live rows under `prefix`: (id, version), ordered by id. */
  entries(resource: MirrorResource, prefix: string): Promise<DigestEntry[]>;
  /** Live rows of a resource. */
  count(resource: MirrorResource): Promise<number>;
  /** Forgets delivery ids recorded before the time (a redelivery comes within days). */
  forgetDeliveries(before: Date): Promise<number>;
  close(): Promise<void>;
}

/** The table of each resource. */
export const MIRROR_TABLES: Record<MirrorResource, string> = {
  locations: 'locations',
  locationGroups: 'location_groups',
  addressGroups: 'address_groups',
};

/** Rows of the bucket range of a prefix: [lower, upper) over 8-digit buckets; upper undefined for `f…f` and ''. */
export function bucketRange(prefix: string): { lower: string; upper: string | undefined } {
  if (prefix === '') return { lower: '', upper: undefined };
  const next = (BigInt(`0x${prefix}`) + 1n).toString(16);
  return {
    lower: prefix,
    upper: next.length > prefix.length ? undefined : next.padStart(prefix.length, '0'),
  };
}

/** The SQL condition (and its values) selecting a prefix's rows by bucket; `placeholder(n)` writes the n-th parameter. */
export function bucketCondition(
  prefix: string,
  placeholder: (n: number) => string,
): { where: string; values: string[] } {
  if (prefix === '') return { where: '', values: [] };
  const { lower, upper } = bucketRange(prefix);
  return upper === undefined
    ? { where: ` AND bucket >= ${placeholder(1)}`, values: [lower] }
    : { where: ` AND bucket >= ${placeholder(1)} AND bucket < ${placeholder(2)}`, values: [lower, upper] };
}

/** The column types and the one index form that differ between the two databases. */
export interface MirrorDialect {
  readonly id: string;
  readonly boolean: string;
  readonly falseValue: string;
  readonly bucket: string;
  readonly body: string;
  readonly time: string;
  /** The index of a table's live rows by bucket, carrying what a digest and its entries read. */
  readonly digestIndex: (table: string) => string;
}

/** The mirror's tables (created if missing), the same in both databases but for the dialect's types. */
export function mirrorSchema(dialect: MirrorDialect): string {
  return `
  CREATE TABLE IF NOT EXISTS lx_sync_state (key text PRIMARY KEY, value text NOT NULL);
  CREATE TABLE IF NOT EXISTS lx_sync_deliveries (webhook_id text PRIMARY KEY, received_at ${dialect.time} NOT NULL);
  CREATE INDEX IF NOT EXISTS lx_sync_deliveries_received_at ON lx_sync_deliveries (received_at);
  ${Object.values(MIRROR_TABLES)
    .map(
      (table) => `
  CREATE TABLE IF NOT EXISTS ${table} (
    id ${dialect.id} PRIMARY KEY, version integer NOT NULL,
    deleted ${dialect.boolean} NOT NULL DEFAULT ${dialect.falseValue},
    bucket ${dialect.bucket} NOT NULL, hash text NOT NULL, body ${dialect.body} NOT NULL);
  ${dialect.digestIndex(table)};`,
    )
    .join('')}`;
}
