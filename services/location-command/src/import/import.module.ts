import { type DynamicModule, Module } from '@nestjs/common';
import { ImportBatchCommitter } from './commands/import-locations/import-batch.committer';
import { ImportBatchPreparer } from './commands/import-locations/import-batch.preparer';
import { ImportLocationsHandler } from './commands/import-locations/import-locations.handler';
import { ImportRowsMetrics } from './commands/import-locations/import-rows.metrics';
import { MissingLocationsRetirer } from './commands/import-locations/missing-locations.retirer';
import { ImportController } from './http/import.controller';
import { IMPORT_OPTIONS, type ImportOptions } from './import-options';

/** Bulk import of locations from NDJSON or CSV. */
@Module({})
export class ImportModule {
  static forRoot(options: Readonly<ImportOptions>): DynamicModule {
    return {
      module: ImportModule,
      controllers: [ImportController],
      providers: [
        ImportLocationsHandler,
        ImportBatchPreparer,
        ImportBatchCommitter,
        MissingLocationsRetirer,
        ImportRowsMetrics,
        { provide: IMPORT_OPTIONS, useValue: options },
      ],
    };
  }
}
