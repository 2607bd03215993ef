/** The ETag of a resource: its aggregate version as a strong tag, the same the operator's write API shows. */
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
