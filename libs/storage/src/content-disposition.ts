/**
 * Quotes a file name for Content-Disposition (RFC 6266): an ASCII fallback plus the UTF-8 form. The value is plain
 * ASCII whatever the name, so it is safe in a header and in a signed query parameter alike.
 */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
