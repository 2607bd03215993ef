import type { ValidationIssue } from '@lx/contracts';
import { DomainError } from '@lx/domain';
import type { ImportReport } from './commands/import-locations/import-report';

/**
 * The file could not be read to its end: a header that is not the location layout (VALIDATION_ERROR) or broken CSV
 * quoting, an over-long record, a client that went away (INVALID_REQUEST). Rows before that point were applied;
 * details.report says what happened to them, and re-sending the corrected file is safe (unchanged rows emit nothing).
 */
export class ImportFileRejectedError extends DomainError {
  readonly code: 'VALIDATION_ERROR' | 'INVALID_REQUEST';

  constructor(message: string, details: { line?: number; issues?: ValidationIssue[]; report: ImportReport }) {
    super(message, details);
    this.code = details.issues !== undefined && details.issues.length > 0 ? 'VALIDATION_ERROR' : 'INVALID_REQUEST';
  }
}

/** The request body is not one of the import formats. */
export class UnsupportedMediaTypeError extends DomainError {
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';

  constructor(received: string | undefined, supported: readonly string[]) {
    super(`Content-Type ${received ?? '(none)'} is not supported; use ${supported.join(' or ')}`, {
      supported: [...supported],
    });
  }
}

/**
 * A full-replace import that would retire more than IMPORT_MAX_RETIRE_SHARE of the locations in service without the
 * request confirming the number (or with a number that no longer matches). The file's rows were applied (as by a
 * merge) and nothing was retired; details give the number to confirm and the report.
 */
export class RetirementsNotConfirmedError extends DomainError {
  readonly code = 'CONFLICT';

  constructor(details: {
    wouldRetire: number;
    inService: number;
    maxRetireShare: number;
    confirmRetirements?: number;
    report: ImportReport;
  }) {
    const percent = (share: number) => `${Math.round(share * 1000) / 10} %`;
    const share = details.inService === 0 ? 1 : details.wouldRetire / details.inService;
    super(
      details.confirmRetirements === undefined
        ? `the file leaves out ${details.wouldRetire} locations in service, ${percent(share)} of the ` +
            `${details.inService} in service before the import, more than the ${percent(details.maxRetireShare)} a ` +
            `full replace retires unasked: the rows were applied, nothing was retired; send the file again with ` +
            `confirmRetirements=${details.wouldRetire} to retire them`
        : `confirmRetirements=${details.confirmRetirements} does not match the ${details.wouldRetire} locations in ` +
            `service the file leaves out now: the rows were applied, nothing was retired`,
      details,
    );
  }
}
