import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a signed download URL grants: GET of `key` until `expires`, answered with this file name and content type. */
export interface DownloadGrant {
  key: string;
  /** Unix seconds; the URL is refused after this instant. */
  expires: number;
  filename: string;
  contentType: string;
}

export type DownloadVerification =
  { ok: true; grant: DownloadGrant } | { ok: false; reason: 'expired' | 'signature' | 'malformed' };

/** The query parameters of a download URL, each exactly once and nothing else (as SigV4 signs every parameter). */
const PARAMETERS = ['expires', 'filename', 'contentType', 'signature'] as const;

/** Base64url of an HMAC-SHA256 without padding: 32 bytes are 43 characters. */
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

/** Decimal seconds without sign or leading zeros: one grant has one spelling. 12 digits stay within safe integers. */
const UNIX_SECONDS = /^(?:0|[1-9][0-9]{0,11})$/;

/**
 * The signed text. A JSON array keeps the fields apart whatever they contain (no file name can shift bytes into the
 * content type), and JSON escapes lone surrogates, which UTF-8 encoding would otherwise merge into one character.
 */
function canonical(grant: DownloadGrant): string {
  return JSON.stringify(['lx-download-v1', 'GET', grant.key, grant.expires, grant.filename, grant.contentType]);
}

/** Base64url HMAC-SHA256 of the grant under `signingKey`. */
export function signDownload(grant: DownloadGrant, signingKey: Buffer): string {
  return createHmac('sha256', signingKey).update(canonical(grant)).digest('base64url');
}

/** The query string of a download URL for the grant (without the `?`). */
export function downloadQuery(grant: DownloadGrant, signingKey: Buffer): string {
  return [
    `expires=${grant.expires}`,
    `filename=${encodeURIComponent(grant.filename)}`,
    `contentType=${encodeURIComponent(grant.contentType)}`,
    `signature=${signDownload(grant, signingKey)}`,
  ].join('&');
}

/**
 * Checks a download request for `key` against its query. The signature is checked before the expiry, so `expired`
 * is only ever said of a URL this key signed.
 */
export function verifyDownload(
  key: string,
  query: URLSearchParams,
  signingKey: Buffer,
  now: Date,
): DownloadVerification {
  if ([...query.keys()].length !== PARAMETERS.length) return { ok: false, reason: 'malformed' };
  const [expires, filename, contentType, signature] = PARAMETERS.map((name) => {
    const all = query.getAll(name);
    return all.length === 1 ? all[0] : undefined;
  });
  if (expires === undefined || filename === undefined || contentType === undefined || signature === undefined) {
    return { ok: false, reason: 'malformed' };
  }
  if (!UNIX_SECONDS.test(expires) || !SIGNATURE.test(signature)) return { ok: false, reason: 'malformed' };

  const grant: DownloadGrant = { key, expires: Number(expires), filename, contentType };
  // Compared as text, not as decoded bytes: the last of 43 characters carries 2 unused bits, so decoding would accept
  // four spellings of one signature.
  const expected = Buffer.from(signDownload(grant, signingKey));
  if (!timingSafeEqual(expected, Buffer.from(signature))) return { ok: false, reason: 'signature' };
  if (now.getTime() > grant.expires * 1000) return { ok: false, reason: 'expired' };
  return { ok: true, grant };
}
