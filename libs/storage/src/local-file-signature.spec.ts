import { createHmac, randomBytes } from 'node:crypto';
import { type DownloadGrant, downloadQuery, signDownload, verifyDownload } from './local-file-signature';

const signingKey = Buffer.alloc(32, 7);
const grant: DownloadGrant = {
  key: 'exports/client-1/export-1.json',
  expires: 1_769_938_200, // 2026-02-01T09:30:00Z
  filename: 'locations-2026-01-31.json',
  contentType: 'application/json',
};
const beforeExpiry = new Date('2026-02-01T09:29:59.000Z');

const queryOf = (value: DownloadGrant = grant, key = signingKey): URLSearchParams =>
  new URLSearchParams(downloadQuery(value, key));

/** The query with one parameter replaced (or removed, for undefined). */
function withParameter(name: string, value: string | undefined): URLSearchParams {
  const query = queryOf();
  if (value === undefined) query.delete(name);
  else query.set(name, value);
  return query;
}

describe('signDownload', () => {
  it('given a grant, when signed, then it is the base64url HMAC-SHA256 of the JSON array of method and fields', () => {
    const canonical = JSON.stringify([
      'lx-download-v1',
      'GET',
      grant.key,
      grant.expires,
      grant.filename,
      grant.contentType,
    ]);
    expect(signDownload(grant, signingKey)).toBe(
      createHmac('sha256', signingKey).update(canonical).digest('base64url'),
    );
    expect(signDownload(grant, signingKey)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it.each([
    ['the key', { key: 'exports/client-1/export-2.json' }],
    ['the expiry', { expires: grant.expires + 1 }],
    ['the file name', { filename: 'other.json' }],
    ['the content type', { contentType: 'text/html' }],
  ])('given another %s, when signed, then the signature differs', (_case, change) => {
    expect(signDownload({ ...grant, ...change }, signingKey)).not.toBe(signDownload(grant, signingKey));
  });

  it('given text moved from the file name into the content type, when signed, then the signature differs', () => {
    const moved = { ...grant, filename: 'a","b', contentType: 'c' };
    expect(signDownload(moved, signingKey)).not.toBe(
      signDownload({ ...grant, filename: 'a', contentType: 'b","c' }, signingKey),
    );
  });

  it('given two lone surrogates that UTF-8 would both turn into U+FFFD, when signed, then the signatures differ', () => {
    expect(signDownload({ ...grant, filename: '\ud800' }, signingKey)).not.toBe(
      signDownload({ ...grant, filename: '\udc00' }, signingKey),
    );
  });
});

describe('downloadQuery', () => {
  it('given a grant, when put in a query, then it has expires, the encoded file name and content type, and the signature', () => {
    const value = { ...grant, filename: 'lieux "été" & co.json', contentType: 'text/csv; charset=utf-8' };
    expect(downloadQuery(value, signingKey)).toBe(
      `expires=1769938200&filename=lieux%20%22%C3%A9t%C3%A9%22%20%26%20co.json` +
        `&contentType=text%2Fcsv%3B%20charset%3Dutf-8&signature=${signDownload(value, signingKey)}`,
    );
  });
});

describe('verifyDownload', () => {
  it('given the query of a grant, when verified for its key before it expires, then it is ok with the grant', () => {
    expect(verifyDownload(grant.key, queryOf(), signingKey, beforeExpiry)).toEqual({ ok: true, grant });
  });

  it('given the query of a grant, when verified at the instant it expires, then it is still ok; a millisecond later it is expired', () => {
    const at = new Date(grant.expires * 1000);
    expect(verifyDownload(grant.key, queryOf(), signingKey, at)).toEqual({ ok: true, grant });
    expect(verifyDownload(grant.key, queryOf(), signingKey, new Date(at.getTime() + 1))).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it('given file name and content type with spaces encoded as +, when verified, then they read as the signed ones', () => {
    const value = { ...grant, filename: 'a b.json', contentType: 'text/csv; charset=utf-8' };
    const query = `expires=${value.expires}&filename=a+b.json&contentType=text/csv;+charset=utf-8&signature=${signDownload(value, signingKey)}`;
    expect(verifyDownload(value.key, new URLSearchParams(query), signingKey, beforeExpiry)).toEqual({
      ok: true,
      grant: value,
    });
  });

  it.each([
    ['another key', () => verifyDownload('exports/client-2/export-1.json', queryOf(), signingKey, beforeExpiry)],
    ['another signing key', () => verifyDownload(grant.key, queryOf(), randomBytes(32), beforeExpiry)],
    [
      'a later expiry',
      () => verifyDownload(grant.key, withParameter('expires', '1769938201'), signingKey, beforeExpiry),
    ],
    [
      'another file name',
      () => verifyDownload(grant.key, withParameter('filename', 'x.json'), signingKey, beforeExpiry),
    ],
    [
      'another content type',
      () => verifyDownload(grant.key, withParameter('contentType', 'text/html'), signingKey, beforeExpiry),
    ],
    [
      'another signature of the right form',
      () => verifyDownload(grant.key, withParameter('signature', 'A'.repeat(43)), signingKey, beforeExpiry),
    ],
  ])('given %s, when verified, then the signature does not match', (_case, verify) => {
    expect(verify()).toEqual({ ok: false, reason: 'signature' });
  });

  it('given a signature whose last character differs only in the bits base64url leaves unused, when verified, then it does not match', () => {
    const signature = signDownload(grant, signingKey);
    const last = 'AEIMQUYcgkosw048'.indexOf(signature[42]!);
    expect(last).toBeGreaterThanOrEqual(0); // 43 characters carry 258 bits: the last holds 2 unused ones
    const sibling = signature.slice(0, 42) + String.fromCharCode(signature.charCodeAt(42) + 1);
    expect(Buffer.from(sibling, 'base64url')).toEqual(Buffer.from(signature, 'base64url'));
    expect(verifyDownload(grant.key, withParameter('signature', sibling), signingKey, beforeExpiry)).toEqual({
      ok: false,
      reason: 'signature',
    });
  });

  it('given an altered expiry that is already past, when verified, then it says signature, not expired', () => {
    expect(verifyDownload(grant.key, withParameter('expires', '1000'), signingKey, beforeExpiry)).toEqual({
      ok: false,
      reason: 'signature',
    });
  });

  it.each([
    ['no expires', withParameter('expires', undefined)],
    ['no file name', withParameter('filename', undefined)],
    ['no content type', withParameter('contentType', undefined)],
    ['no signature', withParameter('signature', undefined)],
    ['an empty query', new URLSearchParams('')],
    ['an expiry with a sign', withParameter('expires', '+1769938200')],
    ['an expiry with a leading zero', withParameter('expires', '01769938200')],
    ['an expiry with a fraction', withParameter('expires', '1769938200.5')],
    ['an expiry of 13 digits', withParameter('expires', '1769938200000')],
    ['an expiry that is no number', withParameter('expires', 'tomorrow')],
    ['a signature with padding', withParameter('signature', `${'A'.repeat(42)}=`)],
    ['a signature in standard base64', withParameter('signature', `${'A'.repeat(42)}+`)],
    ['a signature too short', withParameter('signature', 'A'.repeat(42))],
    ['a signature too long', withParameter('signature', 'A'.repeat(44))],
    ['a signature in hex', withParameter('signature', 'a'.repeat(64))],
  ])('given %s, when verified, then it is malformed', (_case, query) => {
    expect(verifyDownload(grant.key, query, signingKey, beforeExpiry)).toEqual({ ok: false, reason: 'malformed' });
  });

  it.each([
    ['an added parameter', (query: URLSearchParams) => query.append('x', '1')],
    ['a second file name', (query: URLSearchParams) => query.append('filename', 'evil.html')],
    ['a second signature', (query: URLSearchParams) => query.append('signature', query.get('signature')!)],
  ])('given %s, when verified, then it is malformed (every parameter is signed, once)', (_case, change) => {
    const query = queryOf();
    change(query);
    expect(verifyDownload(grant.key, query, signingKey, beforeExpiry)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('given an expired URL with an altered signature, when verified, then it says signature', () => {
    const query = withParameter('signature', 'B'.repeat(43));
    expect(verifyDownload(grant.key, query, signingKey, new Date(grant.expires * 1000 + 60_000))).toEqual({
      ok: false,
      reason: 'signature',
    });
  });
});
