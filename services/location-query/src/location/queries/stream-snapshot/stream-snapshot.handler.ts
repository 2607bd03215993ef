import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { TOPICS } from '@lx/contracts';
import type { SnapshotQuery } from '@lx/domain';
import { PG_POOL } from '@lx/platform';
import { type LocationSnapshot, openLocationSnapshot } from '../../infrastructure/location-snapshot.stream';
import { ProjectionCatchUp } from '../../infrastructure/projection-catch-up';
import { SNAPSHOT_OPTIONS, type SnapshotOptions } from '../../snapshot-options';

/**
 * A consistent snapshot of all locations (or those updated after a time, or of one location group) for the export
 * worker, as NDJSON or CSV records (JSON unless asked otherwise). With `catchUp`, it is opened only once the read
 * model has applied the location topic up to the end offsets it had when the request arrived: after a watermark fence
 * of location-command (which returns once every change up to its watermark is published), the snapshot then holds
 * every change with updatedAt at or before that watermark.
 */
@Injectable()
export class StreamSnapshotHandler {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly projection: ProjectionCatchUp,
    @Inject(SNAPSHOT_OPTIONS) private readonly options: SnapshotOptions,
  ) {}

  async execute(query: SnapshotQuery): Promise<LocationSnapshot> {
    if (query.catchUp === true) await this.projection.untilCaughtUp(TOPICS.locationEvents.name);
    return openLocationSnapshot(
      this.pool,
      { modifiedSince: query.modifiedSince, locationGroupId: query.locationGroupId },
      query.format ?? 'json',
      this.options.fetchRows,
    );
  }
}
