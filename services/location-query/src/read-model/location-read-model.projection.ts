import { Inject, Injectable, Optional } from '@nestjs/common';
import { type EventOf, type EventType, locationCsvRecord, TOPICS, type TopicName } from '@lx/contracts';
import {
  latestPerAggregate,
  type ProjectedEvent,
  type Projection,
  type ProjectionTransaction,
  quoteIdentifier,
} from '@lx/messaging';
import { canonicalLocation } from './canonical-location';
import { DigestDelta, digestColumns, type DigestRow, type NodeDeltas } from './digest-delta';
import { LIVE_TABLES, READ_MODEL_TABLES, type ReadModelTables } from './read-model-tables';

type LocationEvent = EventOf<'LOCATION_CREATED' | 'LOCATION_UPDATED'>;
type GroupEvent = EventOf<
  | 'LOCATION_GROUP_CREATED'
  | 'LOCATION_GROUP_UPDATED'
  | 'LOCATION_GROUP_DELETED'
  | 'ADDRESS_GROUP_CREATED'
  | 'ADDRESS_GROUP_UPDATED'
  | 'ADDRESS_GROUP_DELETED'
>;

const LOCATION_TYPES = new Set<EventType>(['LOCATION_CREATED', 'LOCATION_UPDATED']);
const LOCATION_GROUP_TYPES = new Set<EventType>([
  'LOCATION_GROUP_CREATED',
  'LOCATION_GROUP_UPDATED',
  'LOCATION_GROUP_DELETED',
]);
const ADDRESS_GROUP_TYPES = new Set<EventType>([
  'ADDRESS_GROUP_CREATED',
  'ADDRESS_GROUP_UPDATED',
  'ADDRESS_GROUP_DELETED',
]);

const aggregateId = (projected: ProjectedEvent) => (projected.event.data as { id: string }).id;

/**
 * Marks the transaction as one that keeps the digest itself, so that the trigger the AddReadModelDigest migration left
 * for the previous release's writers adds nothing. Evaluated with the batch (r), before any row is written.
 */
const KEPT = `set_config('lx.digest', 'kept', true) AS digest_kept`;

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Whether a row's id is one of these. */
const isIn = (ids: readonly { id: string }[]) => {
  const set = new Set(ids.map((each) => each.id));
  return (row: { id: string }) => set.has(row.id);
};

/** A group as the projection writes it. */
interface GroupRowInput {
  id: string;
  version: number;
  name: string;
  type: string;
  deleted: boolean;
  changedAt: string;
}

/** The groups as the six arrays the statements unnest, $1 to $6. */
const groupColumns = (rows: readonly GroupRowInput[]) => [
  rows.map((row) => row.id),
  rows.map((row) => row.version),
  rows.map((row) => row.name),
  rows.map((row) => row.type),
  rows.map((row) => row.deleted),
  rows.map((row) => row.changedAt),
];

/**
 * Keeps one row per location and per group, each the full resource of its newest event (a location both as JSON and
 * as its CSV record; a group with its event's timestamp and, once deleted, as a tombstone with the deletion's time). Every event's data is the complete resource, so applying the newest version is enough: within a
 * batch only the highest version per aggregate is written, and the upsert only replaces a row whose stored version is
 * older. A duplicate, a redelivery or an older event arriving after a newer one therefore changes nothing.
 *
 * In the same transaction it keeps the stored nodes of the digest (docs/digest.md): each write XORs the replaced
 * entry out of its node and the new one in, and counts a resource in or out.
 */
@Injectable()
export class LocationReadModelProjection implements Projection {
  readonly name = 'location-read-model';
  readonly topics: readonly TopicName[] = [
    TOPICS.locationEvents.name,
    TOPICS.locationGroupEvents.name,
    TOPICS.addressGroupEvents.name,
  ];
  readonly eventTypes: readonly EventType[] = [...LOCATION_TYPES, ...LOCATION_GROUP_TYPES, ...ADDRESS_GROUP_TYPES];
  private readonly tables: ReadModelTables;

  constructor(@Optional() @Inject(READ_MODEL_TABLES) tables?: ReadModelTables) {
    this.tables = tables ?? LIVE_TABLES;
  }

  async apply(transaction: ProjectionTransaction, events: readonly ProjectedEvent[]): Promise<void> {
    const latest = latestPerAggregate(events, aggregateId);
    const locations = latest.filter((projected) => LOCATION_TYPES.has(projected.event.type));
    const locationGroups = latest.filter((projected) => LOCATION_GROUP_TYPES.has(projected.event.type));
    const addressGroups = latest.filter((projected) => ADDRESS_GROUP_TYPES.has(projected.event.type));
    // apply() gets one partition's events, and that partition's transactions run one at a time, so the digest rows
    // of its slot are never waited for (see the AddReadModelDigest migration).
    const slot = events[0]?.partition ?? 0;
    const digest = new DigestDelta();
    if (locations.length > 0) await this.upsertLocations(transaction, locations, digest, slot);
    if (locationGroups.length > 0) {
      await this.upsertGroups(transaction, 'locationGroups', locationGroups, digest, slot);
    }
    if (addressGroups.length > 0) {
      await this.upsertGroups(transaction, 'addressGroups', addressGroups, digest, slot);
    }
    await this.updateDigest(transaction, digest, slot);
  }

  /**
   * Writes the locations and their digest nodes: a new row adds its entry to its node, a newer version replaces the
   * old entry (XOR out, XOR in). The old version must be the one really replaced even should two transactions write
   * the same id (two members during a rebalance, or a topic whose partitions were changed): one statement locks the
   * existing rows in id order and reads them, inserts the new ids, updates the older rows and adds the net change
   * of each node. An id it can neither insert nor find (another transaction inserted it meanwhile and committed: ON
   * CONFLICT DO NOTHING waited for it) is written again by the statements of writeOneByOne, which see it.
   */
  private async upsertLocations(
    transaction: ProjectionTransaction,
    events: readonly ProjectedEvent[],
    digest: DigestDelta,
    slot: number,
  ): Promise<void> {
    const rows = events
      .map((projected) => {
        const location = canonicalLocation((projected.event as LocationEvent).data);
        return {
          id: location.id.toLowerCase(),
          version: projected.version,
          body: location,
          csv: locationCsvRecord(location),
          location_group_id: location.locationGroupId ?? null,
          address_group_id: location.address?.addressGroupId ?? null,
          updated_at: location.updatedAt,
        };
      })
      .sort(byId);
    const table = quoteIdentifier(this.tables.locations);
    const columns = `id uuid, version int, body json, csv text, location_group_id uuid, address_group_id uuid,
                     updated_at timestamptz`;
    // The batch travels as one JSON document (one parameter whatever its size; Postgres allows 65,535 per statement),
    // serialised natively. body is a json column, so the stored text is exactly the serialised Location in the
    // contract's field order: what GET /locations/{id} serves. csv is the same location as the CSV export writes it.
    // Not a named statement, although planning it costs about as much as running it for one row: a generic plan
    // cannot know a batch's size and scans the table (130 single-event batches per second instead of 900 here).
    const { rows: missed } = await transaction.query<{ id: string }>(
      `WITH r AS MATERIALIZED (SELECT *, ${KEPT} FROM json_to_recordset($1::json) AS r(${columns})),
       old AS MATERIALIZED (
         SELECT l.id, l.version, l.digest_hash FROM ${table} AS l
          WHERE l.id IN (SELECT id FROM r) ORDER BY l.id FOR UPDATE
       ),
       ins AS (
         INSERT INTO ${table} AS l (id, version, body, csv, location_group_id, address_group_id, updated_at)
         SELECT id, version, body, csv, location_group_id, address_group_id, updated_at
           FROM r WHERE id NOT IN (SELECT id FROM old) ORDER BY id
         ON CONFLICT (id) DO NOTHING
         RETURNING l.id, l.digest_key, 1 AS count, l.digest_hash AS hash
       ),
       upd AS (
         UPDATE ${table} AS l SET
           version = r.version, body = r.body, csv = r.csv, location_group_id = r.location_group_id,
           address_group_id = r.address_group_id, updated_at = r.updated_at
           FROM r JOIN old ON old.id = r.id
          WHERE l.id = r.id AND old.version < r.version
         RETURNING l.id, l.digest_key, 0 AS count, l.digest_hash # old.digest_hash AS hash
       ),
       ${this.nodesStatement(2, 3, 'ins', 'upd')}
       SELECT id::text FROM r WHERE id NOT IN (SELECT id FROM old) AND id NOT IN (SELECT id FROM ins)`,
      [JSON.stringify(rows), 'locations', slot],
    );
    if (missed.length === 0) return;
    await this.writeLocationsOneByOne(transaction, rows.filter(isIn(missed)), digest.of('locations'));
  }

  /** upsertLocations in separate statements, for ids another transaction inserted meanwhile; see there. */
  private async writeLocationsOneByOne(
    transaction: ProjectionTransaction,
    rows: readonly { id: string; version: number }[],
    nodes: NodeDeltas,
  ): Promise<void> {
    const table = quoteIdentifier(this.tables.locations);
    const inserted = await transaction.query<DigestRow>(
      `INSERT INTO ${table} AS l (id, version, body, csv, location_group_id, address_group_id, updated_at)
       SELECT id, version, body, csv, location_group_id, address_group_id, updated_at
         FROM json_to_recordset($1::json)
           AS r(id uuid, version int, body json, csv text, location_group_id uuid, address_group_id uuid,
                updated_at timestamptz)
        ORDER BY id
       ON CONFLICT (id) DO NOTHING
       RETURNING l.id::text, ${digestColumns('l')}`,
      [JSON.stringify(rows)],
    );
    for (const row of inserted.rows) nodes.add(row);
    const done = new Set(inserted.rows.map((row) => row.id));
    const existing = rows.filter((row) => !done.has(row.id));
    if (existing.length === 0) return;
    const old = await this.lockExisting(transaction, table, existing);
    const newer = existing.filter((row) => (old.get(row.id)?.version ?? Infinity) < row.version);
    if (newer.length === 0) return;
    const updated = await transaction.query<DigestRow>(
      `UPDATE ${table} AS l SET
         version = r.version, body = r.body, csv = r.csv, location_group_id = r.location_group_id,
         address_group_id = r.address_group_id, updated_at = r.updated_at
         FROM json_to_recordset($1::json)
           AS r(id uuid, version int, body json, csv text, location_group_id uuid, address_group_id uuid,
                updated_at timestamptz)
        WHERE l.id = r.id AND l.version < r.version
       RETURNING l.id::text, ${digestColumns('l')}`,
      [JSON.stringify(newer)],
    );
    for (const row of updated.rows) {
      nodes.remove(old.get(row.id)!);
      nodes.add(row);
    }
  }

  /**
   * Writes the groups as upsertLocations writes locations. A group is in the digest while it lives: a deletion (the
   * row becomes a tombstone) takes its entry out, a creation after it puts the new version in.
   */
  private async upsertGroups(
    transaction: ProjectionTransaction,
    resource: 'locationGroups' | 'addressGroups',
    events: readonly ProjectedEvent[],
    digest: DigestDelta,
    slot: number,
  ): Promise<void> {
    const rows = events
      .map((projected) => {
        const event = projected.event as GroupEvent;
        return {
          id: event.data.id.toLowerCase(),
          version: projected.version,
          name: event.data.name,
          type: event.data.type,
          deleted: event.type.endsWith('_DELETED'),
          changedAt: event.timestamp,
        };
      })
      .sort(byId);
    const table = quoteIdentifier(this.tables[resource]);
    // changed_at is the event's timestamp (what modifiedSince compares with); deleted_at the deletion event's, and
    // null again should a newer event bring the group back. Both move with the row, so only a newer version sets them.
    const { rows: missed } = await transaction.query<{ id: string }>(
      `WITH r AS MATERIALIZED (
         SELECT *, ${KEPT} FROM unnest($1::uuid[], $2::int[], $3::text[], $4::text[], $5::boolean[], $6::timestamptz[])
           AS r(id, version, name, type, deleted, changed_at)
       ),
       old AS MATERIALIZED (
         SELECT g.id, g.version, g.deleted, g.digest_hash FROM ${table} AS g
          WHERE g.id IN (SELECT id FROM r) ORDER BY g.id FOR UPDATE
       ),
       ins AS (
         INSERT INTO ${table} AS g (id, version, name, type, deleted, changed_at, deleted_at)
         SELECT id, version, name, type, deleted, changed_at, CASE WHEN deleted THEN changed_at END
           FROM r WHERE id NOT IN (SELECT id FROM old) ORDER BY id
         ON CONFLICT (id) DO NOTHING
         RETURNING g.id, g.digest_key, (NOT g.deleted)::int AS count,
                   CASE WHEN g.deleted THEN 0 ELSE g.digest_hash END AS hash
       ),
       upd AS (
         UPDATE ${table} AS g SET
           version = r.version, name = r.name, type = r.type, deleted = r.deleted, changed_at = r.changed_at,
           deleted_at = CASE WHEN r.deleted THEN r.changed_at END
           FROM r JOIN old ON old.id = r.id
          WHERE g.id = r.id AND old.version < r.version
         RETURNING g.id, g.digest_key, (NOT g.deleted)::int - (NOT old.deleted)::int AS count,
                   CASE WHEN g.deleted THEN 0 ELSE g.digest_hash END
                     # CASE WHEN old.deleted THEN 0 ELSE old.digest_hash END AS hash
       ),
       ${this.nodesStatement(7, 8, 'ins', 'upd')}
       SELECT id::text FROM r WHERE id NOT IN (SELECT id FROM old) AND id NOT IN (SELECT id FROM ins)`,
      [...groupColumns(rows), resource, slot],
    );
    if (missed.length === 0) return;
    await this.writeGroupsOneByOne(transaction, table, rows.filter(isIn(missed)), digest.of(resource));
  }

  /** upsertGroups in separate statements, for ids another transaction inserted meanwhile; see upsertLocations. */
  private async writeGroupsOneByOne(
    transaction: ProjectionTransaction,
    table: string,
    rows: readonly GroupRowInput[],
    nodes: NodeDeltas,
  ): Promise<void> {
    const inserted = await transaction.query<DigestRow>(
      `INSERT INTO ${table} AS g (id, version, name, type, deleted, changed_at, deleted_at)
       SELECT id, version, name, type, deleted, changed_at, CASE WHEN deleted THEN changed_at END
         FROM unnest($1::uuid[], $2::int[], $3::text[], $4::text[], $5::boolean[], $6::timestamptz[])
           AS r(id, version, name, type, deleted, changed_at)
        ORDER BY id
       ON CONFLICT (id) DO NOTHING
       RETURNING g.id::text, g.deleted, ${digestColumns('g')}`,
      groupColumns(rows),
    );
    for (const row of inserted.rows) if (!row.deleted) nodes.add(row);
    const done = new Set(inserted.rows.map((row) => row.id));
    const existing = rows.filter((row) => !done.has(row.id));
    if (existing.length === 0) return;
    const old = await this.lockExisting(transaction, table, existing);
    const newer = existing.filter((row) => (old.get(row.id)?.version ?? Infinity) < row.version);
    if (newer.length === 0) return;
    const updated = await transaction.query<DigestRow>(
      `UPDATE ${table} AS g SET
         version = r.version, name = r.name, type = r.type, deleted = r.deleted, changed_at = r.changed_at,
         deleted_at = CASE WHEN r.deleted THEN r.changed_at END
         FROM unnest($1::uuid[], $2::int[], $3::text[], $4::text[], $5::boolean[], $6::timestamptz[])
           AS r(id, version, name, type, deleted, changed_at)
        WHERE g.id = r.id AND g.version < r.version
       RETURNING g.id::text, g.deleted, ${digestColumns('g')}`,
      groupColumns(newer),
    );
    for (const row of updated.rows) {
      const before = old.get(row.id)!;
      if (!before.deleted) nodes.remove(before);
      if (!row.deleted) nodes.add(row);
    }
  }

  /**
   * The last steps of the one-statement upserts: the net change of each node (the `count` and `hash` of the rows the
   * CTEs `changes` return) added to this slot's stored nodes, in node order. The resource and the slot are the
   * statement's parameters number `resource` and `slot`.
   */
  private nodesStatement(resource: number, slot: number, ...changes: string[]): string {
    return `delta AS (${changes
      .map((name) => `SELECT (digest_key >> 20)::int AS node, count, hash FROM ${name}`)
      .join(' UNION ALL ')}),
       nodes AS (
         INSERT INTO ${quoteIdentifier(this.tables.digestNodes)} AS d (resource, node, slot, count, hash)
         SELECT $${resource}::text, node, $${slot}::int, sum(count), bit_xor(hash) FROM delta GROUP BY node
         HAVING sum(count) <> 0 OR bit_xor(hash) <> 0 ORDER BY node
         ON CONFLICT (resource, node, slot) DO UPDATE SET count = d.count + EXCLUDED.count, hash = d.hash # EXCLUDED.hash
       )`;
  }

  /** The stored rows of these ids, locked until commit (in id order), with what the digest needs of them. */
  private async lockExisting(
    transaction: ProjectionTransaction,
    quotedTable: string,
    rows: readonly { id: string }[],
  ): Promise<Map<string, DigestRow & { version: number }>> {
    const isGroup = quotedTable !== quoteIdentifier(this.tables.locations);
    const { rows: locked } = await transaction.query<DigestRow & { version: number }>(
      `SELECT t.id::text, t.version, ${isGroup ? 't.deleted, ' : ''}${digestColumns('t')}
         FROM ${quotedTable} AS t WHERE t.id = ANY($1::uuid[]) ORDER BY t.id FOR UPDATE`,
      [rows.map((row) => row.id)],
    );
    return new Map(locked.map((row) => [row.id, row]));
  }

  /** Adds the batch's changes to the stored nodes of this partition's slot, in node order (no lock cycles). */
  private async updateDigest(transaction: ProjectionTransaction, digest: DigestDelta, slot: number): Promise<void> {
    for (const [resource, nodes] of digest.changes()) {
      if (nodes.length === 0) continue;
      await transaction.query(
        `INSERT INTO ${quoteIdentifier(this.tables.digestNodes)} AS d (resource, node, slot, count, hash)
         SELECT $1, node, $2, count, hash FROM unnest($3::int[], $4::bigint[], $5::bigint[]) AS u(node, count, hash)
          ORDER BY node
         ON CONFLICT (resource, node, slot) DO UPDATE SET count = d.count + EXCLUDED.count, hash = d.hash # EXCLUDED.hash`,
        [
          resource,
          slot,
          nodes.map((node) => node.node),
          nodes.map((node) => node.count),
          nodes.map((node) => node.hash.toString()),
        ],
      );
    }
  }
}
