import { Inject, Injectable, Optional } from '@nestjs/common';
import { type EventOf, type EventType, locationCsvRecord, TOPICS, type TopicName } from '@lx/contracts';
import { latestPerAggregate, type ProjectedEvent, type Projection, type ProjectionTransaction } from '@lx/messaging';
import { canonicalLocation } from './canonical-location';
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

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
const aggregateId = (projected: ProjectedEvent) => (projected.event.data as { id: string }).id;

/**
 * Keeps one row per location and per group, each the full resource of its newest event (a location both as JSON and
 * as its CSV record; a group with its event's timestamp and, once deleted, as a tombstone with the deletion's time). Every event's data is the complete resource, so applying the newest version is enough: within a
 * batch only the highest version per aggregate is written, and the upsert only replaces a row whose stored version is
 * older. A duplicate, a redelivery or an older event arriving after a newer one therefore changes nothing.
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
    if (locations.length > 0) await this.upsertLocations(transaction, locations);
    if (locationGroups.length > 0) await this.upsertGroups(transaction, this.tables.locationGroups, locationGroups);
    if (addressGroups.length > 0) await this.upsertGroups(transaction, this.tables.addressGroups, addressGroups);
  }

  private async upsertLocations(transaction: ProjectionTransaction, events: readonly ProjectedEvent[]): Promise<void> {
    const rows = events.map((projected) => {
      const location = canonicalLocation((projected.event as LocationEvent).data);
      return {
        id: location.id,
        version: projected.version,
        body: location,
        csv: locationCsvRecord(location),
        location_group_id: location.locationGroupId ?? null,
        address_group_id: location.address?.addressGroupId ?? null,
        updated_at: location.updatedAt,
      };
    });
    // The batch travels as one JSON document (one parameter whatever its size; Postgres allows 65,535 per statement),
    // serialised natively. body is a json column, so the stored text is exactly the serialised Location in the
    // contract's field order: what GET /locations/{id} serves. csv is the same location as the CSV export writes it.
    await transaction.query(
      `INSERT INTO ${quote(this.tables.locations)} AS l
         (id, version, body, csv, location_group_id, address_group_id, updated_at)
       SELECT id, version, body, csv, location_group_id, address_group_id, updated_at
         FROM json_to_recordset($1::json)
           AS r(id uuid, version int, body json, csv text, location_group_id uuid, address_group_id uuid,
                updated_at timestamptz)
       ON CONFLICT (id) DO UPDATE SET
         version = EXCLUDED.version, body = EXCLUDED.body, csv = EXCLUDED.csv,
         location_group_id = EXCLUDED.location_group_id,
         address_group_id = EXCLUDED.address_group_id, updated_at = EXCLUDED.updated_at
       WHERE l.version < EXCLUDED.version`,
      [JSON.stringify(rows)],
    );
  }

  private async upsertGroups(
    transaction: ProjectionTransaction,
    table: string,
    events: readonly ProjectedEvent[],
  ): Promise<void> {
    const rows = events.map((projected) => {
      const event = projected.event as GroupEvent;
      return {
        version: projected.version,
        group: event.data,
        deleted: event.type.endsWith('_DELETED'),
        changedAt: event.timestamp,
      };
    });
    // changed_at is the event's timestamp (what modifiedSince compares with); deleted_at the deletion event's, and
    // null again should a newer event bring the group back. Both move with the row, so only a newer version sets them.
    await transaction.query(
      `INSERT INTO ${quote(table)} AS g (id, version, name, type, deleted, changed_at, deleted_at)
       SELECT id, version, name, type, deleted, changed_at, CASE WHEN deleted THEN changed_at END
         FROM unnest($1::uuid[], $2::int[], $3::text[], $4::text[], $5::boolean[], $6::timestamptz[])
           AS r(id, version, name, type, deleted, changed_at)
       ON CONFLICT (id) DO UPDATE SET
         version = EXCLUDED.version, name = EXCLUDED.name, type = EXCLUDED.type, deleted = EXCLUDED.deleted,
         changed_at = EXCLUDED.changed_at, deleted_at = EXCLUDED.deleted_at
       WHERE g.version < EXCLUDED.version`,
      [
        rows.map((row) => row.group.id),
        rows.map((row) => row.version),
        rows.map((row) => row.group.name),
        rows.map((row) => row.group.type),
        rows.map((row) => row.deleted),
        rows.map((row) => row.changedAt),
      ],
    );
  }
}
