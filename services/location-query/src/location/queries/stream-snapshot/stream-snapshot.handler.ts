import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { PG_POOL } from '@lx/platform';
import { type LocationSnapshot, openLocationSnapshot } from '../../infrastructure/location-snapshot.stream';

export const SNAPSHOT_FETCH_ROWS = Symbol('SNAPSHOT_FETCH_ROWS');

export interface StreamSnapshot {
  /** Only locations updated after this UTC date-time; all when absent. */
  modifiedSince?: string;
}

/** A consistent snapshot of all locations (or those updated after a time) for the export worker. */
@Injectable()
export class StreamSnapshotHandler {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SNAPSHOT_FETCH_ROWS) private readonly fetchRows: number,
  ) {}

  execute(query: StreamSnapshot): Promise<LocationSnapshot> {
    return openLocationSnapshot(this.pool, query.modifiedSince, this.fetchRows);
  }
}
