import { Injectable } from '@nestjs/common';
import type { StatisticsResponse } from '@lx/contracts';
import type { StatisticsFilter } from '@lx/domain';
import { Clock } from '@lx/platform';
import { StatisticsRepository } from '../../infrastructure/statistics.repository';

/**
 * Counts of the locations matching every filter. A location without serviceability status counts in totalCount and
 * countByType but in no countByStatus key (so the statuses may sum to less than the total), and never matches a
 * status filter. queryTimestamp is when the count was taken; the counts reflect the events applied by then.
 */
@Injectable()
export class GetStatisticsHandler {
  constructor(
    private readonly statistics: StatisticsRepository,
    private readonly clock: Clock,
  ) {}

  async execute(filter: StatisticsFilter): Promise<StatisticsResponse> {
    const queryTimestamp = this.clock.now().toISOString();
    const counts = await this.statistics.count(filter);
    return { ...counts, queryTimestamp };
  }
}
