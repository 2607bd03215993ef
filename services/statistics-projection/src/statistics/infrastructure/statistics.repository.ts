import { Injectable } from '@nestjs/common';
import { SERVICEABILITY_STATUSES, type StatisticsResponse } from '@lx/contracts';
import type { StatisticsFilter } from '@lx/domain';
import { ReadPool } from '@lx/platform';
import { buildStatisticsQuery, type StatisticsRow } from './statistics-query';

export type Counts = Omit<StatisticsResponse, 'queryTimestamp'>;

/**
 * Runs the one statistics query through node-postgres (a single round trip on the hot path), on the RSP-facing
 * ReadPool: under its statement timeout, on connections apart from the projection's.
 */
@Injectable()
export class StatisticsRepository {
  constructor(private readonly pool: ReadPool) {}

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
