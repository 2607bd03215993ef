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
