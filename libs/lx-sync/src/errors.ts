/**
 * Every failure lx-sync reports to its user, each with a code the CLI maps to an exit status and a message that says
 * what to do. Anything else is a defect and is printed with its stack.
 */
export type LxSyncErrorCode =
  | 'CONFIG_INVALID'
  | 'AUTH_FAILED'
  | 'API_UNREACHABLE'
  | 'API_ERROR'
  | 'EXPORT_FAILED'
  | 'NOT_INITIALISED'
  | 'ALREADY_INITIALISED'
  | 'FEED_EXPIRED'
  | 'SIGNATURE_INVALID'
  | 'INVALID_PAYLOAD'
  | 'DATABASE_ERROR';

export class LxSyncError extends Error {
  constructor(
    readonly code: LxSyncErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'LxSyncError';
  }
}

/** Exit statuses of the CLI: 1 is kept for "drift found" (verify), as `diff` and driftless do. */
export const EXIT = { ok: 0, drift: 1, usage: 2, failure: 3 } as const;

export function exitStatusOf(error: unknown): number {
  if (error instanceof LxSyncError) return error.code === 'CONFIG_INVALID' ? EXIT.usage : EXIT.failure;
  return EXIT.failure;
}
