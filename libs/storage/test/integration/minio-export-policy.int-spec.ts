import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'minio';
import { MinioObjectStore } from '../../src';
import { REPO_ROOT, requireEnv, uniqueSuffix } from '@lx/testing';
import { bytes, download, failingAfter, generated } from './object-store-contract';

const MIB = 1024 * 1024;

interface Credentials {
  accessKey: string;
  secretKey: string;
}

/**
 * What deploy/local/minio.sh sets up, and the chart's Secret must hold in production: export-worker's own user
 * (MINIO_ACCESS_KEY), whose policy reaches the objects of the exports bucket (MINIO_BUCKET) and nothing else; the root
 * user (MINIO_ROOT_USER) only administers.
 */
describe("export-worker's MinIO user: the exports bucket's objects, nothing else", () => {
  const endpointUrl = requireEnv('MINIO_ENDPOINT_URL');
  const bucket = requireEnv('MINIO_BUCKET');
  const worker: Credentials = { accessKey: requireEnv('MINIO_ACCESS_KEY'), secretKey: requireEnv('MINIO_SECRET_KEY') };
  const root: Credentials = { accessKey: requireEnv('MINIO_ROOT_USER'), secretKey: requireEnv('MINIO_ROOT_PASSWORD') };
  const storeAs = (credentials: Credentials, storeBucket = bucket) =>
    new MinioObjectStore({
      endpointUrl,
      publicEndpointUrl: endpointUrl,
      ...credentials,
      bucket: storeBucket,
      region: 'us-east-1',
    });
  const clientAs = (credentials: Credentials) => {
    const url = new URL(endpointUrl);
    return new Client({
      endPoint: url.hostname,
      port: Number(url.port),
      useSSL: false,
      ...credentials,
      region: 'us-east-1',
    });
  };
  const admin = clientAs(root);
  const asWorker = clientAs(worker);
  /** A bucket of this file's own, made by the root user, with one object in it. */
  const otherBucket = `it-other-${uniqueSuffix()}`;

  beforeAll(async () => {
    await admin.makeBucket(otherBucket, 'us-east-1');
    await admin.putObject(otherBucket, 'exports/it/theirs.csv', Buffer.from('id\n1\n'));
  });

  afterAll(async () => {
    await admin.removeObject(otherBucket, 'exports/it/theirs.csv');
    await admin.removeBucket(otherBucket);
  });

  it('is a user of its own, not the root user', () => {
    expect(worker.accessKey).not.toBe(root.accessKey);
  });

  it('finds its bucket at start, writes a multipart export file, lists it, signs its download and deletes it', async () => {
    const store = storeAs(worker);
    await expect(store.ensureBucket()).resolves.toBeUndefined();
    await expect(store.ping()).resolves.toBeUndefined();
    const key = `exports/it/${uniqueSuffix()}.ndjson`;
    const source = generated(8 * MIB + 1);

    await expect(store.put(key, source.stream, { contentType: 'application/x-ndjson' })).resolves.toEqual({
      size: 8 * MIB + 1,
    });
    const listed: string[] = [];
    for await (const item of asWorker.listObjectsV2(bucket, key, true) as AsyncIterable<{ name?: string }>) {
      if (item.name !== undefined) listed.push(item.name);
    }
    expect(listed).toEqual([key]);
    const { url } = await store.presignGet(key, {
      expiresInSeconds: 60,
      filename: 'locations.ndjson',
      contentType: 'application/x-ndjson',
      now: new Date(),
    });
    const file = await download(url);
    expect(file.status).toBe(200);
    expect(Number(file.headers.get('content-length'))).toBe(8 * MIB + 1);

    await store.remove(key);
    await expect(admin.statObject(bucket, key)).rejects.toMatchObject({ code: 'NotFound' });
  });

  it('aborts its own failed multipart upload: no parts are left behind', async () => {
    const key = `exports/it/${uniqueSuffix()}.csv`;
    const failing = failingAfter(12 * MIB, 10 * MIB);

    await expect(storeAs(worker).put(key, failing, { contentType: 'text/csv' })).rejects.toThrow(
      'the snapshot stream broke',
    );

    const uploads: unknown[] = [];
    for await (const upload of admin.listIncompleteUploads(bucket, key, true) as AsyncIterable<unknown>) {
      uploads.push(upload);
    }
    expect(uploads).toEqual([]);
  });

  it('is refused (AccessDenied) reading, writing or listing another bucket', async () => {
    await expect(asWorker.putObject(otherBucket, 'exports/it/mine.csv', Buffer.from('id\n'))).rejects.toMatchObject({
      code: 'AccessDenied',
    });
    await expect(
      storeAs(worker, otherBucket).put('exports/it/mine.csv', bytes('id\n'), { contentType: 'text/csv' }),
    ).rejects.toMatchObject({ code: 'AccessDenied' });
    await expect(asWorker.getObject(otherBucket, 'exports/it/theirs.csv')).rejects.toMatchObject({
      code: 'AccessDenied',
    });
    await expect(asWorker.removeObject(otherBucket, 'exports/it/theirs.csv')).rejects.toMatchObject({
      code: 'AccessDenied',
    });
    await expect(storeAs(worker, otherBucket).ping()).rejects.toMatchObject({ code: 'AccessDenied' });
  });

  it('is refused (AccessDenied) creating a bucket, deleting its own, or changing its policy', async () => {
    const name = `it-new-${uniqueSuffix()}`;
    await expect(asWorker.makeBucket(name, 'us-east-1')).rejects.toMatchObject({ code: 'AccessDenied' });
    await expect(storeAs(worker, name).ensureBucket()).rejects.toMatchObject({ code: 'AccessDenied' });
    expect(await admin.bucketExists(name)).toBe(false);
    await expect(asWorker.removeBucket(bucket)).rejects.toMatchObject({ code: 'AccessDenied' });
    const publicRead = JSON.stringify({
      Version: '2012-10-17',
      Statement: [
        { Effect: 'Allow', Principal: '*', Action: ['s3:GetObject'], Resource: [`arn:aws:s3:::${bucket}/*`] },
      ],
    });
    await expect(asWorker.setBucketPolicy(bucket, publicRead)).rejects.toMatchObject({ code: 'AccessDenied' });
  });

  it('is refused with no credentials, an unknown user, or a wrong secret', async () => {
    const put = (credentials: Credentials) =>
      storeAs(credentials).put(`exports/it/${uniqueSuffix()}.csv`, bytes('id\n'), { contentType: 'text/csv' });
    await expect(put({ accessKey: '', secretKey: '' })).rejects.toMatchObject({ code: 'AccessDenied' });
    await expect(put({ accessKey: 'nobody-here', secretKey: worker.secretKey })).rejects.toMatchObject({
      code: 'InvalidAccessKeyId',
    });
    await expect(put({ ...worker, secretKey: `${worker.secretKey}-wrong` })).rejects.toMatchObject({
      code: 'SignatureDoesNotMatch',
    });
  });

  it('has the policy that docs/security.md and docs/kubernetes.md give to operators', () => {
    const applied = readFileSync(join(REPO_ROOT, 'deploy/local/minio/export-worker-policy.json.template'), 'utf8');
    const expected = JSON.parse(applied.replaceAll('@MINIO_BUCKET_NAME@', 'location-exports')) as unknown;
    for (const page of ['security.md', 'kubernetes.md']) {
      const text = readFileSync(join(REPO_ROOT, 'docs', page), 'utf8');
      const block = /```json\n(\{\n {2}"Version"[\s\S]*?)```/.exec(text)?.[1];
      expect({ page, policy: block === undefined ? undefined : (JSON.parse(block) as unknown) }).toEqual({
        page,
        policy: expected,
      });
    }
  });
});
