/** A response header the document defines once. */
export type HeaderName =
  | 'X-Request-Id'
  | 'ETag'
  | 'Location'
  | 'Retry-After'
  | 'WWW-Authenticate'
  | 'Idempotent-Replayed'
  | 'Cache-Control'
  | 'RateLimit-Policy'
  | 'RateLimit';
