import { MinioObjectStore } from './minio-object-store';

const config = {
  endpointUrl: 'http://minio.internal:9000',
  publicEndpointUrl: 'https://downloads.example.net',
  accessKey: 'access',
  secretKey: 'secret-key-of-the-test',
  bucket: 'location-exports',
  region: 'us-east-1',
};

// Presigning with a fixed region is pure computation (SigV4 over the request): no request leaves the process.
describe('MinioObjectStore.presignGet', () => {
  const now = new Date('2026-01-31T09:30:00.000Z');

  it('given a public endpoint, when a download URL is signed, then it points there with the download headers', async () => {
    const store = new MinioObjectStore(config);
    const { url, expiresAt } = await store.presignGet('exports/abc.csv', {
      expiresInSeconds: 86_400,
      filename: 'locations-2026-01-31.csv',
      contentType: 'text/csv; charset=utf-8',
      now,
    });
    const signed = new URL(url);
    expect(signed.origin).toBe('https://downloads.example.net');
    expect(signed.pathname).toBe('/location-exports/exports/abc.csv');
    expect(signed.searchParams.get('X-Amz-Expires')).toBe('86400');
    expect(signed.searchParams.get('X-Amz-Date')).toBe('20260131T093000Z');
    expect(signed.searchParams.get('X-Amz-Credential')).toBe('access/20260131/us-east-1/s3/aws4_request');
    expect(signed.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(signed.searchParams.get('response-content-type')).toBe('text/csv; charset=utf-8');
    expect(signed.searchParams.get('response-content-disposition')).toBe(
      `attachment; filename="locations-2026-01-31.csv"; filename*=UTF-8''locations-2026-01-31.csv`,
    );
    expect(expiresAt).toEqual(new Date('2026-02-01T09:30:00.000Z'));
    expect(url).not.toContain(config.secretKey);
  });

  it('given a file name outside ASCII or with quotes, when signed, then Content-Disposition has an ASCII fallback and the UTF-8 form (RFC 6266)', async () => {
    const store = new MinioObjectStore(config);
    const { url } = await store.presignGet('k', {
      expiresInSeconds: 60,
      filename: 'lieux "été".json',
      contentType: 'application/json',
      now,
    });
    expect(new URL(url).searchParams.get('response-content-disposition')).toBe(
      `attachment; filename="lieux __t__.json"; filename*=UTF-8''lieux%20%22%C3%A9t%C3%A9%22.json`,
    );
  });
});
