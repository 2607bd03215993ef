import { Module } from '@nestjs/common';
import { Clock, SystemClock } from '@lx/platform';
import { StatisticsController } from './http/statistics.controller';
import { StatisticsRepository } from './infrastructure/statistics.repository';
import { GetStatisticsHandler } from './queries/get-statistics/get-statistics.handler';

@Module({
  controllers: [StatisticsController],
  providers: [StatisticsRepository, GetStatisticsHandler, { provide: Clock, useClass: SystemClock }],
})
export class StatisticsModule {}
