import { type DynamicModule, Module } from '@nestjs/common';
import { Clock, IdGenerator, ServiceTokenProvider, SystemClock, TimeOrderedUuidGenerator, WakeUp } from '@lx/platform';
import { EXPORT_WORKER_CONFIG, type ExportWorkerConfig } from '../config/export-worker.config';
import { RenewExportLinkHandler } from './commands/renew-export-link/renew-export-link.handler';
import { RequestExportHandler } from './commands/request-export/request-export.handler';
import { ExportJobRunner } from './generation/export-job.runner';
import { GenerateExportHandler } from './generation/generate-export.handler';
import { ExportsController } from './http/exports.controller';
import { ExportEventsPublisher } from './infrastructure/export-events.publisher';
import { ExportMetrics } from './infrastructure/export-metrics';
import { ExportRequestRepository } from './infrastructure/export-request.repository';
import { HttpLocationSource } from './infrastructure/http-location-source';
import { LocationSource } from './infrastructure/location-source';
import { GetExportHandler } from './queries/get-export/get-export.handler';
import { ListExportsHandler } from './queries/list-exports/list-exports.handler';
import { PurgeExpiredExportsSchedule } from './retention/purge-expired-exports.schedule';

/** Export requests (the RSP API), their generation by job slots, and file retention. */
@Module({})
export class ExportModule {
  static register(config: ExportWorkerConfig): DynamicModule {
    return {
      module: ExportModule,
      controllers: [ExportsController],
      providers: [
        { provide: EXPORT_WORKER_CONFIG, useValue: config },
        { provide: Clock, useClass: SystemClock },
        { provide: IdGenerator, useClass: TimeOrderedUuidGenerator },
        {
          provide: LocationSource,
          inject: [Clock],
          useFactory: (clock: Clock) =>
            new HttpLocationSource(config.peers, new ServiceTokenProvider(config.serviceClient, clock)),
        },
        ExportRequestRepository,
        ExportEventsPublisher,
        ExportMetrics,
        // Wakes this replica's idle job slots when a request was accepted here.
        WakeUp,
        RequestExportHandler,
        GetExportHandler,
        ListExportsHandler,
        RenewExportLinkHandler,
        GenerateExportHandler,
        ExportJobRunner,
        PurgeExpiredExportsSchedule,
      ],
    };
  }
}
