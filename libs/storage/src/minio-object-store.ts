import { Client } from 'minio';
import type { Readable } from 'node:stream';
import type { StorageConfig } from '@lx/platform';
import { contentDisposition } from './content-disposition';
import { ObjectStore, type PresignedUrl, type PresignOptions, type PutOptions } from './object-store';

/**
 * Part size of streamed uploads (S3 requires at least 5 MiB for every part but the last); a streamed upload buffers at
 * most one part in memory.
 */
const PART_SIZE_BYTES = 8 * 1024 * 1024;

function clientFor(endpointUrl: string, config: Readonly<StorageConfig>): Client {
  const url = new URL(endpointUrl);
  const useSSL = url.protocol === 'https:';
  return new Client({
    endPoint: url.hostname,
    port: url.port ? Number(url.port) : useSSL ? 443 : 80,
    useSSL,
    accessKey: config.accessKey,
    secretKey: config.secretKey,
    // A fixed region keeps presigning offline (no bucket-location request).
    region: config.region,
    partSize: PART_SIZE_BYTES,
  });
}

/**
 * MinIO adapter. Uploads go to the internal endpoint; download URLs are signed for the public
 * endpoint (the host RSPs reach), which may differ from the internal one.
 */
export class MinioObjectStore extends ObjectStore {
  private readonly internal: Client;
  private readonly public: Client;

  constructor(private readonly config: Readonly<StorageConfig>) {
    super();
    this.internal = clientFor(config.endpointUrl, config);
    this.public = clientFor(config.publicEndpointUrl, config);
  }

  async ensureBucket(): Promise<void> {
    if (await this.internal.bucketExists(this.config.bucket)) return;
    await this.internal.makeBucket(this.config.bucket, this.config.region).catch(async (error: unknown) => {
      // Another replica may have created it between the check and the call.
      if (!(await this.internal.bucketExists(this.config.bucket))) throw error;
    });
  }

  async put(key: string, body: Readable, options: PutOptions): Promise<{ size: number }> {
    await this.internal.putObject(this.config.bucket, key, body, undefined, { 'Content-Type': options.contentType });
    const stat = await this.internal.statObject(this.config.bucket, key);
    return { size: stat.size };
  }

  async presignGet(key: string, options: PresignOptions): Promise<PresignedUrl> {
    const url = await this.public.presignedGetObject(
      this.config.bucket,
      key,
      options.expiresInSeconds,
      {
        'response-content-disposition': contentDisposition(options.filename),
        'response-content-type': options.contentType,
      },
      options.now,
    );
    return { url, expiresAt: new Date(options.now.getTime() + options.expiresInSeconds * 1000) };
  }

  async remove(key: string): Promise<void> {
    await this.internal.removeObject(this.config.bucket, key);
  }

  async ping(): Promise<void> {
    if (!(await this.internal.bucketExists(this.config.bucket))) {
      throw new Error(`bucket ${this.config.bucket} does not exist`);
    }
  }
}
