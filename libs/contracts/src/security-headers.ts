/**
 * The Content-Security-Policy of every API reply: JSON and CSV load nothing, so a reply opened in a browser may run,
 * fetch, embed and be embedded by nothing (docs/security.md, Response headers).
 */
export const API_CONTENT_SECURITY_POLICY =
  "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The policy of the Swagger UI page at /docs, which auth serves from its own origin: its script and style files
 * from there (no inline script), inline style attributes (Swagger UI's React sets them), its icons as data: URIs,
 * the OpenAPI document and "Try it out" calls to the same origin; still embedded by nothing.
 */
export const DOCUMENTATION_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The headers on every reply of every service, errors included, and on the errors the ingress answers itself (nginx's
 * `add_header` lines in helm/location-exchange/files/nginx/edge-errors.server.conf, answerEdgeError of libs/platform).
 */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  // A download or error body is never sniffed into HTML or script.
  'x-content-type-options': 'nosniff',
  'content-security-policy': API_CONTENT_SECURITY_POLICY,
  // frame-ancestors' older twin, for browsers without CSP level 2.
  'x-frame-options': 'DENY',
  // Links followed from /docs leak no URL (which may carry ids) to another site.
  'referrer-policy': 'no-referrer',
};
