import { PermanentProjectionError } from './projection';

/**
 * How a failure to apply events is handled: `permanent` means the same events would fail again whatever is retried,
 * so the one event at fault goes to the dead-letter topic; `transient` means retry (the database or the log is away).
 */
export type FailureKind = 'permanent' | 'transient';

/**
 * SQLSTATE classes that describe the data rather than the server: 21 cardinality violation (one statement touching a
 * row twice, as a batch with two versions of an aggregate would if a projection failed to reduce it), 22 data
 * exception (a value out of range for its column), 23 integrity constraint violation (a CHECK the event breaks). The
 * consumer retries such a batch message by message and dead-letters only the event that still fails. Everything else, including 42 (a missing
 * table while a migration runs) and 08/57 (connection lost, server shutting down), is retried: dead-lettering valid
 * events because the database was briefly unusable would lose them from the read model.
 */
const PERMANENT_SQLSTATE_CLASSES = new Set(['21', '22', '23']);

export function classifyFailure(error: unknown): FailureKind {
  if (error instanceof PermanentProjectionError) return 'permanent';
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && PERMANENT_SQLSTATE_CLASSES.has(code.slice(0, 2))) {
    return 'permanent';
  }
  return 'transient';
}

/** A failure as one line for logs and the dead-letter header. */
export function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${error.message} (SQLSTATE ${code})` : error.message;
}
