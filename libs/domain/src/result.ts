import type { DomainError } from './errors/domain-error';

/** Outcome of a rule check: the value, or the typed error that says why not. */
export type Result<T, E extends DomainError = DomainError> = { ok: true; value: T } | { ok: false; error: E };

/** The value, as a Result. */
export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

/** The error, as a Result. */
export function fail<E extends DomainError>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}
