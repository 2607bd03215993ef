import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { SERVICEABILITY_STATUSES, type StatisticsResponse } from '@lx/contracts';
import type { StatisticsFilter } from '@lx/domain';
import { PG_POOL } from '@lx/platform';
import { buildStatisticsQuery, type StatisticsRow } from './statistics-query';

export type Counts = Omit<StatisticsResponse, 'queryTimestamp'>;

/** Runs the one statistics query through node-postgres (a single round trip on the hot path). */
@Injectable()
export class StatisticsRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  async count(filter: StatisticsFilter): Promise<Counts> {
    const query = buildStatisticsQuery(filter);
    const { rows } = await this.pool.query<StatisticsRow>(query.text, query.values);
    const row = rows[0]!;
    const total = Number(row.total);
    const grouped = Number(row.grouped);
    return {
      totalCount: total,
      countByStatus: Object.fromEntries(
        SERVICEABILITY_STATUSES.map((status) => [status, Number(row[status])]),
      ) as Counts['countByStatus'],
      countByType: {
        addressOnly: Number(row.address_only),
        coordinatesOnly: Number(row.coordinates_only),
        addressAndCoordinates: Number(row.address_and_coordinates),
        grouped,
        standalone: total - grouped,
      },
    };
  }
}
