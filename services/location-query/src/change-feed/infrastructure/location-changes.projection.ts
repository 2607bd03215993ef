import { Injectable } from '@nestjs/common';
import {
  CHANGE_EVENT_TYPES,
  changeDeliveryOf,
  type ChangeEventType,
  type EventOf,
  TOPICS,
  type TopicName,
} from '@lx/contracts';
import type { ProjectedEvent, Projection, ProjectionTransaction } from '@lx/messaging';

/** The kind of resource a change is about: a location and a group never share a version sequence. */
export type ChangeResourceType = 'location' | 'locationGroup' | 'addressGroup';

export function resourceTypeOf(type: ChangeEventType): ChangeResourceType {
  if (type.startsWith('LOCATION_GROUP_')) return 'locationGroup';
  if (type.startsWith('ADDRESS_GROUP_')) return 'addressGroup';
  return 'location';
}

/**
 * Appends every location and group change to location_changes, as the RSP receives it: the body is
 * changeDeliveryOf(event, version) serialised once, the very function and serialisation the webhook dispatcher uses.
 *
 * Idempotent: an event already in the feed (same event id, or same resource and version) is passed over (ON CONFLICT
 * DO NOTHING), and so is an event older than a version of its resource already in the feed, so each resource's
 * changes appear in version order. Within a batch rows are inserted in offset order: their sequence numbers follow it.
 * Several partitions may be applied at once, in concurrent transactions; the feed's read rule (only rows of
 * transactions below the snapshot's xmin) keeps that safe.
 */
@Injectable()
export class LocationChangesProjection implements Projection {
  readonly name = 'location-changes';
  readonly topics: readonly TopicName[] = [
    TOPICS.locationEvents.name,
    TOPICS.locationGroupEvents.name,
    TOPICS.addressGroupEvents.name,
  ];
  readonly eventTypes = CHANGE_EVENT_TYPES;

  async apply(transaction: ProjectionTransaction, events: readonly ProjectedEvent[]): Promise<void> {
    const newest = new Map<string, number>();
    const rows = [];
    for (const projected of events) {
      const event = projected.event as EventOf<ChangeEventType>;
      const resourceType = resourceTypeOf(event.type);
      const key = `${resourceType}/${event.data.id}`;
      // An older version after a newer one in the same batch would be inserted behind it: passed over here, as the
      // statement's guard passes over one older than a row already stored.
      if ((newest.get(key) ?? 0) >= projected.version) continue;
      newest.set(key, projected.version);
      rows.push({
        eventId: event.id,
        resourceType,
        resourceId: event.data.id,
        version: projected.version,
        occurredAt: event.timestamp,
        body: JSON.stringify(changeDeliveryOf(event, projected.version)),
      });
    }
    if (rows.length === 0) return;
    await this.refuseIfAheadOfCluster(transaction);
    await transaction.query(
      `INSERT INTO location_changes (event_id, resource_type, resource_id, version, occurred_at, body)
       SELECT r.event_id, r.resource_type, r.resource_id, r.version, r.occurred_at, r.body::json
         FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::int[], $5::timestamptz[], $6::text[])
                WITH ORDINALITY AS r(event_id, resource_type, resource_id, version, occurred_at, body, n)
        WHERE NOT EXISTS (
                SELECT 1 FROM location_changes c
                 WHERE c.resource_type = r.resource_type AND c.resource_id = r.resource_id AND c.version > r.version)
        ORDER BY r.n
       ON CONFLICT DO NOTHING`,
      [
        rows.map((row) => row.eventId),
        rows.map((row) => row.resourceType),
        rows.map((row) => row.resourceId),
        rows.map((row) => row.version),
        rows.map((row) => row.occurredAt),
        rows.map((row) => row.body),
      ],
    );
  }

  /**
   * Transaction ids belong to one PostgreSQL cluster. After a restore into another one (a logical dump), stored rows
   * can carry ids above the ones this cluster hands out: new rows would sort behind cursors already handed out and be
   * skipped by every RSP. Then nothing is inserted; the batch fails (retried, readiness down) until the feed is reset.
   * An index probe at or above the snapshot's xmax, the next id the cluster hands out: every row this snapshot sees
   * was committed before it and so has a lower id, unless the ids came from another cluster. (Not this transaction's
   * own id: a concurrent transaction of another partition can draw a higher one and commit first.)
   */
  private async refuseIfAheadOfCluster(transaction: ProjectionTransaction): Promise<void> {
    const { rows } = await transaction.query<{ ahead: boolean }>(
      `SELECT EXISTS (
         SELECT 1 FROM location_changes WHERE tx_id >= pg_snapshot_xmax(pg_current_snapshot())
       ) AS ahead`,
    );
    if (rows[0]?.ahead) {
      throw new Error(
        'location_changes holds transaction ids ahead of this PostgreSQL cluster (restored into another cluster?): ' +
          'stop location-query and run its cli.js reset-change-feed; see "Change feed" in docs/read-side.md',
      );
    }
  }
}
