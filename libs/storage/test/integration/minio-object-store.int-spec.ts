import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { MinioObjectStore } from '../../src';
import { requireEnv, uniqueSuffix } from '@lx/testing';

const MIB = 1024 * 1024;

/** A stream of `size` pseudo-random bytes produced chunk by chunk, and the digest of what it produced. */
function generated(size: number): { stream: Readable; digest: () => string } {
  const hash = createHash('sha256');
  let remaining = size;
  const stream = new Readable({
    read() {
      if (remaining === 0) return void this.push(null);
      const chunk = randomBytes(Math.min(remaining, 256 * 1024));
      remaining -= chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
  return { stream, digest: () => hash.digest('hex') };
}

describe('MinioObjectStore against the real MinIO', () => {
  const endpointUrl = requireEnv('MINIO_ENDPOINT_URL');
  const store = new MinioObjectStore({
    endpointUrl,
    publicEndpointUrl: process.env.MINIO_PUBLIC_ENDPOINT_URL ?? endpointUrl,
    accessKey: requireEnv('MINIO_ACCESS_KEY'),
    secretKey: requireEnv('MINIO_SECRET_KEY'),
    bucket: `it-${uniqueSuffix()}`,
    region: 'us-east-1',
  });

  beforeAll(() => store.ensureBucket());

  it('creates its bucket idempotently and then answers ping', async () => {
    await store.ensureBucket();
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it('streams a multipart upload, and a presigned GET returns the same bytes with download headers', async () => {
    const size = 19 * MIB + 12345; // more than two 8 MiB parts
    const source = generated(size);
    const key = 'exports/it/locations.json';

    await expect(store.put(key, source.stream, { contentType: 'application/json' })).resolves.toEqual({ size });

    const now = new Date();
    const signed = await store.presignGet(key, {
      expiresInSeconds: 3600,
      filename: 'locations-2026-11-22.json',
      contentType: 'application/json',
      now,
    });
    expect(signed.expiresAt.getTime()).toBe(now.getTime() + 3_600_000);
    expect(signed.url.startsWith(process.env.MINIO_PUBLIC_ENDPOINT_URL ?? endpointUrl)).toBe(true);

    const response = await fetch(signed.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('content-length')).toBe(String(size));
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="locations-2026-11-22.json"; filename*=UTF-8''locations-2026-11-22.json`,
    );
    const body = Buffer.from(await response.arrayBuffer());
    expect(createHash('sha256').update(body).digest('hex')).toBe(source.digest());
  });

  it('refuses a presigned URL after it expired, and one whose signature was altered', async () => {
    const key = 'exports/it/small.csv';
    await store.put(key, Readable.from([Buffer.from('id\n1\n')]), { contentType: 'text/csv' });
    const expired = await store.presignGet(key, {
      expiresInSeconds: 1,
      filename: 'small.csv',
      contentType: 'text/csv',
      now: new Date(Date.now() - 60_000),
    });
    expect((await fetch(expired.url)).status).toBe(403);

    const valid = await store.presignGet(key, {
      expiresInSeconds: 60,
      filename: 'small.csv',
      contentType: 'text/csv',
      now: new Date(),
    });
    const tampered = valid.url.replace(
      /X-Amz-Signature=([0-9a-f])/,
      (_, c: string) => `X-Amz-Signature=${c === '0' ? '1' : '0'}`,
    );
    expect((await fetch(tampered)).status).toBe(403);
    expect(await (await fetch(valid.url)).text()).toBe('id\n1\n');
  });
});
