import { ENTITY_TAGS_PATTERN } from '@lx/contracts';
import { InvalidRequestError, VersionMismatchError } from '@lx/domain';

/** The ETag of a resource: its aggregate version as a strong entity tag, the same on the read and the write API. */
export function etagOf(version: number): string {
  return `"${version}"`;
}

/**
 * Whether If-None-Match matches the current ETag (RFC 9110 section 13.1.2): `*`, or one of the listed tags by weak
 * comparison (W/"3" matches "3"). A match answers 304 Not Modified.
 */
export function ifNoneMatchMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const current = opaque(etag);
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === current);
}

/**
 * Checks an If-Match header (RFC 9110 section 13.1.1) against the current version (`null`: no resource yet): `*`
 * needs the resource to exist; otherwise one of the listed tags must equal the current ETag by strong comparison, so a
 * weak tag never matches. Without the header every version is accepted (last writer wins). A value that is neither
 * `*` nor a list of entity tags (`3`, an empty header) is 400 INVALID_REQUEST: it can never match, and a 412 would
 * tell the client to re-read rather than to fix its request.
 */
export function assertIfMatch(ifMatch: string | undefined, current: number | null): void {
  if (ifMatch === undefined) return;
  if (!ENTITY_TAGS_PATTERN.test(ifMatch)) {
    throw new InvalidRequestError('If-Match must be * or entity tags such as "3"', { header: 'If-Match' });
  }
  const tags = ifMatch.split(',').map((tag) => tag.trim());
  const matches = tags.includes('*') ? current !== null : current !== null && tags.includes(etagOf(current));
  if (!matches) throw new VersionMismatchError(ifMatch, current);
}
