import { Controller, HttpCode, Inject, Post, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { ValidationFailedError } from '@lx/domain';
import { RequireScope } from '@lx/platform';
import { ImportLocationsHandler } from '../commands/import-locations/import-locations.handler';
import { IMPORT_MEDIA_TYPES, IMPORT_MODES, type ImportMode, type ImportReport, SCOPES } from '@lx/contracts';
import { UnsupportedMediaTypeError } from '../import.errors';
import { IMPORT_OPTIONS, type ImportOptions } from '../import-options';
import { csvRows } from '../infrastructure/csv-rows';
import { ndjsonRows } from '../infrastructure/ndjson-rows';

/**
 * POST /operator/imports: a streamed NDJSON (application/x-ndjson) or CSV (text/csv) body of any size; `?mode=full-replace`
 * retires the locations the file leaves out (above IMPORT_MAX_RETIRE_SHARE of those in service, only with
 * `confirmRetirements` = their number). Answers 200 with the report once the whole file is applied.
 */
@Controller('operator/imports')
@RequireScope(SCOPES.locationsWrite)
export class ImportController {
  constructor(
    private readonly importLocations: ImportLocationsHandler,
    @Inject(IMPORT_OPTIONS) private readonly options: ImportOptions,
  ) {}

  @Post()
  @HttpCode(200)
  async import(
    @Req() request: FastifyRequest,
    @Query('mode') mode: string | undefined,
    @Query('confirmRetirements') confirmRetirements: string | undefined,
  ): Promise<ImportReport> {
    const importMode = importModeOf(mode);
    const confirmed = confirmationOf(confirmRetirements, importMode);
    const contentType = request.headers['content-type'];
    const mediaType = contentType?.split(';', 1)[0]?.trim().toLowerCase();
    const body = request.body;
    if (!(body instanceof Readable) || !Object.values<string>(IMPORT_MEDIA_TYPES).includes(mediaType ?? '')) {
      throw new UnsupportedMediaTypeError(contentType, Object.values(IMPORT_MEDIA_TYPES));
    }
    const options = { maxRowBytes: this.options.maxRowBytes };
    const rows = mediaType === IMPORT_MEDIA_TYPES.csv ? csvRows(body, options) : ndjsonRows(body, options);
    return this.importLocations.execute({
      rows,
      mode: importMode,
      ...(confirmed === undefined ? {} : { confirmRetirements: confirmed }),
      correlationId: request.id,
    });
  }
}

function importModeOf(mode: string | undefined): ImportMode {
  if (mode === undefined) return 'merge';
  if ((IMPORT_MODES as readonly string[]).includes(mode)) return mode as ImportMode;
  throw new ValidationFailedError([
    { field: 'mode', rule: 'enum', message: `mode must be one of ${IMPORT_MODES.join(', ')}` },
  ]);
}

/** `confirmRetirements`: a whole number of 0 or more, and only for a full replace. */
function confirmationOf(value: string | undefined, mode: ImportMode): number | undefined {
  if (value === undefined) return undefined;
  const problem = (rule: string, message: string) =>
    new ValidationFailedError([{ field: 'confirmRetirements', rule, message }]);
  if (!/^\d{1,15}$/.test(value)) throw problem('integer', 'confirmRetirements must be a whole number of 0 or more');
  if (mode !== 'full-replace') throw problem('mode', 'confirmRetirements is only for mode=full-replace');
  return Number(value);
}
