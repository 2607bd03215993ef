import { Client } from 'minio';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { MinioStorageConfig } from '@lx/platform';
import { contentDisposition } from './content-disposition';
import { ObjectStore, type PresignedUrl, type PresignOptions, type PutOptions } from './object-store';

/** Part size of streamed uploads (S3 requires at least 5 MiB for every part but the last). */
const PART_SIZE_BYTES = 8 * 1024 * 1024;

function clientFor(endpointUrl: string, config: Readonly<MinioStorageConfig>): Client {
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

  constructor(private readonly config: Readonly<MinioStorageConfig>) {
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

  /**
   * Streams `body` up as a multipart upload through two part buffers allocated once per upload: one fills while the
   * other is sent, so an upload holds 2 × 8 MiB whatever its size and leaves no part-sized garbage behind. (The
   * client's own `putObject` of a stream allocates a new buffer per part; dead 8 MiB buffers then pile up outside the
   * V8 heap until a full collection, so a long export's memory peak grew with its length.) A body under one part is
   * a single PUT. A failed upload is aborted, so no parts are left behind.
   */
  async put(key: string, body: Readable, options: PutOptions): Promise<{ size: number }> {
    const { bucket } = this.config;
    const headers = { 'Content-Type': options.contentType };
    const buffers = [Buffer.allocUnsafe(PART_SIZE_BYTES), Buffer.allocUnsafe(PART_SIZE_BYTES)] as const;
    const etags: { part: number; etag: string }[] = [];
    let uploadId: string | undefined;
    let sending: Promise<void> = Promise.resolve();
    let current = 0;
    let filled = 0;
    let size = 0;
    /** Sends one part; parts are sent one at a time, so `etags.length + 1` is the number of the next. */
    const send = async (part: Buffer, partNumber: number) => {
      uploadId ??= await this.internal.initiateNewMultipartUpload(bucket, key, headers);
      const md5 = createHash('md5').update(part).digest('base64');
      const { etag } = await this.internal.uploadPart(
        { bucketName: bucket, objectName: key, uploadID: uploadId, partNumber, headers: { 'Content-MD5': md5 } },
        part,
      );
      etags.push({ part: partNumber, etag });
    };
    try {
      for await (const chunk of body as AsyncIterable<Buffer | string>) {
        const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        for (let offset = 0; offset < data.length;) {
          const copied = data.copy(buffers[current]!, filled, offset);
          offset += copied;
          filled += copied;
          size += copied;
          if (filled < PART_SIZE_BYTES) continue;
          // The other buffer is free once its part is sent; then this one is sent while the other fills.
          await sending;
          sending = send(buffers[current]!, etags.length + 1);
          sending.catch(() => undefined);
          current = 1 - current;
          filled = 0;
        }
      }
      await sending;
      const rest = buffers[current]!.subarray(0, filled);
      if (uploadId === undefined) {
        await this.internal.putObject(bucket, key, rest, filled, headers);
      } else {
        if (filled > 0) await send(rest, etags.length + 1);
        await this.internal.completeMultipartUpload(bucket, key, uploadId, etags);
      }
      return { size };
    } catch (error) {
      await sending.catch(() => undefined);
      if (uploadId !== undefined)
        await this.internal.abortMultipartUpload(bucket, key, uploadId).catch(() => undefined);
      throw error;
    }
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
