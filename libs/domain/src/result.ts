import type { DomainError } from './errors/domain-error';

/** Outcome of a rule check: the value, or the typed error that says why not. */
export type Result<T, E extends DomainError = DomainError> = { ok: true; value: T } | { ok: false; error: E };
