import { Controller, Get, Query } from '@nestjs/common';
import { SCOPES, type StatisticsResponse } from '@lx/contracts';
import { parseStatisticsQuery, type QueryParameters } from '@lx/domain';
import { RateLimited, RequireScope } from '@lx/platform';
import { GetStatisticsHandler } from '../queries/get-statistics/get-statistics.handler';

/** GET /locations/statistics: filters parsed once here (400 with the OAF-100 code naming the parameter). */
@Controller('locations/statistics')
@RequireScope(SCOPES.locationsRead)
@RateLimited()
export class StatisticsController {
  constructor(private readonly getStatistics: GetStatisticsHandler) {}

  @Get()
  async get(@Query() query: QueryParameters): Promise<StatisticsResponse> {
    const filter = parseStatisticsQuery(query);
    if (!filter.ok) throw filter.error;
    return this.getStatistics.execute(filter.value);
  }
}
