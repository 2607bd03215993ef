import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { Client } from 'minio';
import { MinioObjectStore } from '../../src';
import { requireEnv, uniqueSuffix } from '@lx/testing';
import { describeObjectStoreContract, failingAfter, generated } from './object-store-contract';

const MIB = 1024 * 1024;

/**
 * The adapter on a bucket of this file's own, which only the root user may create: export-worker's user reaches the
 * exports bucket only (minio-export-policy.int-spec.ts).
 */
function minioConfig() {
  const endpointUrl = requireEnv('MINIO_ENDPOINT_URL');
  return {
    endpointUrl,
    publicEndpointUrl: process.env.MINIO_PUBLIC_ENDPOINT_URL ?? endpointUrl,
    accessKey: requireEnv('MINIO_ROOT_USER'),
    secretKey: requireEnv('MINIO_ROOT_PASSWORD'),
    bucket: `it-${uniqueSuffix()}`,
    region: 'us-east-1',
  };
}

describeObjectStoreContract('MinioObjectStore against the real MinIO', () => {
  const config = minioConfig();
  return Promise.resolve({ store: new MinioObjectStore(config), publicBaseUrl: config.publicEndpointUrl });
});

describe('MinioObjectStore streamed uploads (8 MiB parts through two reused buffers)', () => {
  const config = minioConfig();
  const store = new MinioObjectStore(config);
  const url = new URL(config.endpointUrl);
  const inspector = new Client({
    endPoint: url.hostname,
    port: Number(url.port),
    useSSL: false,
    accessKey: config.accessKey,
    secretKey: config.secretKey,
    region: config.region,
  });

  beforeAll(() => store.ensureBucket());

  async function stored(key: string): Promise<{ size: number; sha256: string }> {
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of (await inspector.getObject(config.bucket, key)) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      size += chunk.length;
    }
    return { size, sha256: hash.digest('hex') };
  }

  async function incompleteUploads(key: string): Promise<unknown[]> {
    const uploads: unknown[] = [];
    for await (const upload of inspector.listIncompleteUploads(config.bucket, key, true) as AsyncIterable<unknown>) {
      uploads.push(upload);
    }
    return uploads;
  }

  it.each([
    ['exactly two parts', 16 * MIB],
    ['one byte more than a part', 8 * MIB + 1],
    ['one byte less than a part (a single PUT)', 8 * MIB - 1],
    ['nothing', 0],
  ])('stores a body of %s byte for byte', async (_, size) => {
    const key = `exports/it/${uniqueSuffix()}.bin`;
    const source = generated(size);

    await expect(store.put(key, source.stream, { contentType: 'application/octet-stream' })).resolves.toEqual({ size });

    expect(await stored(key)).toEqual({ size, sha256: source.digest() });
    expect(await incompleteUploads(key)).toEqual([]);
  });

  it('takes strings as well as buffers from the body', async () => {
    const key = `exports/it/${uniqueSuffix()}.csv`;
    const text = 'a,b\n"é",ü\n';
    await expect(
      store.put(key, Readable.from(['a,b\n', Buffer.from('"é",'), 'ü\n']), { contentType: 'text/csv' }),
    ).resolves.toEqual({ size: Buffer.byteLength(text) });
    expect(await stored(key)).toEqual({
      size: Buffer.byteLength(text),
      sha256: createHash('sha256').update(text).digest('hex'),
    });
  });

  it('aborts the multipart upload when the body fails in its third part: the error surfaces, no object, no parts left', async () => {
    const key = `exports/it/${uniqueSuffix()}.json`;
    const failing = failingAfter(40 * MIB, 18 * MIB);

    await expect(store.put(key, failing, { contentType: 'application/json' })).rejects.toThrow(
      'the snapshot stream broke',
    );

    await expect(inspector.statObject(config.bucket, key)).rejects.toMatchObject({ code: 'NotFound' });
    expect(await incompleteUploads(key)).toEqual([]);
  });
});
