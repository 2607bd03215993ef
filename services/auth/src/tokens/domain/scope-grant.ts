import type { Scope } from '@lx/contracts';
import { OAuthError } from './oauth.error';

/**
 * The scopes a token gets: those requested, which must all be held by the client (asking for more is an error,
 * never a silent narrowing), or, when none are requested, every scope the client holds.
 */
export function grantScopes(requested: readonly string[] | undefined, held: readonly Scope[]): Scope[] {
  if (requested === undefined) return [...held];
  const refused = requested.filter((scope) => !(held as readonly string[]).includes(scope));
  if (refused.length > 0) {
    throw new OAuthError('invalid_scope', `The client may not request the scope ${refused.join(' ')}`);
  }
  return held.filter((scope) => requested.includes(scope));
}
