import type { Result, ValidationFailedError } from '@lx/domain';

/** The parsed query, or the typed 400 the error filter turns into the spec's body. */
export function valueOrThrow<T>(result: Result<T, ValidationFailedError>): T {
  if (!result.ok) throw result.error;
  return result.value;
}
