import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { TOPICS } from '@lx/contracts';
import type { SnapshotQuery } from '@lx/domain';
import { PG_POOL } from '@lx/platform';
import { type LocationSnapshot, openLocationSnapshot } from '../../infrastructure/location-snapshot.stream';
import { ProjectionCatchUp } from '../../infrastructure/projection-catch-up';
import { SNAPSHOT_OPTIONS, type SnapshotOptions } from '../../snapshot-options';

/** The topics a snapshot with groups waits for. */
const GROUP_SNAPSHOT_TOPICS = [
  TOPICS.locationEvents.name,
  TOPICS.locationGroupEvents.name,
  TOPICS.addressGroupEvents.name,
];

/**
 * A consistent snapshot of all locations (or those updated after a time, or of one location group) for the export
 * worker, as NDJSON or CSV records (JSON unless asked otherwise), with `groups` followed by the groups of the same
 * snapshot, with `versions` each line ending with its row's version. With `catchUp`, it is opened only once the read model has applied the location topic (with `groups` also
 * both group topics) up to the end offsets it had when the request arrived: after a watermark fence of
 * location-command (which returns once every change up to its watermark is published, group changes included), the
 * snapshot then holds every change with updatedAt (a group's: its event's timestamp) at or before that watermark.
 */
@Injectable()
export class StreamSnapshotHandler {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly projection: ProjectionCatchUp,
    @Inject(SNAPSHOT_OPTIONS) private readonly options: SnapshotOptions,
  ) {}

  async execute(query: SnapshotQuery): Promise<LocationSnapshot> {
    const groups = query.groups === true;
    if (query.catchUp === true) {
      const topics = groups ? GROUP_SNAPSHOT_TOPICS : [TOPICS.locationEvents.name];
      await Promise.all(topics.map((topic) => this.projection.untilCaughtUp(topic)));
    }
    return openLocationSnapshot(
      this.pool,
      { modifiedSince: query.modifiedSince, locationGroupId: query.locationGroupId },
      query.format ?? 'json',
      this.options.fetchRows,
      { groups, versions: query.versions === true },
    );
  }
}
