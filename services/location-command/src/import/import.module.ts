import { type DynamicModule, Module } from '@nestjs/common';
import { ImportLocationsHandler } from './commands/import-locations/import-locations.handler';
import { ImportController } from './http/import.controller';
import { IMPORT_OPTIONS, type ImportOptions } from './import-options';

/** Bulk import of locations from NDJSON or CSV. */
@Module({})
export class ImportModule {
  static forRoot(options: Readonly<ImportOptions>): DynamicModule {
    return {
      module: ImportModule,
      controllers: [ImportController],
      providers: [ImportLocationsHandler, { provide: IMPORT_OPTIONS, useValue: options }],
    };
  }
}
