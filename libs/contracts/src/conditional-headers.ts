/**
 * An If-Match or If-None-Match value (RFC 9110 section 13.1): `*`, or entity tags (`"3"`, `W/"3"`) separated by
 * commas. Anything else is a malformed header, refused with 400 INVALID_REQUEST rather than compared.
 */
export const ENTITY_TAGS_PATTERN = /^\s*(?:\*|(?:W\/)?"[^"]*"(?:\s*,\s*(?:W\/)?"[^"]*")*)\s*$/;
