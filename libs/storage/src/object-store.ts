import type { Readable } from 'node:stream';

export interface PutOptions {
  contentType: string;
}

export interface PresignOptions {
  expiresInSeconds: number;
  /** File name offered to the browser: the download answers `Content-Disposition: attachment; filename=…`. */
  filename: string;
  contentType: string;
  /** Signing time; the URL expires `expiresInSeconds` after it. */
  now: Date;
}

export interface PresignedUrl {
  url: string;
  expiresAt: Date;
}

/**
 * Port to object storage, its adapter chosen by OBJECT_STORE (objectStoreFor): MinIO / S3 (MinioObjectStore), or files
 * in a directory (LocalFileObjectStore: the embedded profile). test/integration/object-store-contract.ts holds both to
 * the same behaviour.
 */
export abstract class ObjectStore {
  /** Creates the bucket if it does not exist yet. */
  abstract ensureBucket(): Promise<void>;
  /** Streams `body` into `key` without holding it in memory; resolves with the stored size in bytes. */
  abstract put(key: string, body: Readable, options: PutOptions): Promise<{ size: number }>;
  /** A GET URL that needs no other credentials until it expires. */
  abstract presignGet(key: string, options: PresignOptions): Promise<PresignedUrl>;
  abstract remove(key: string): Promise<void>;
  /** Resolves while the store answers and the bucket exists; used by readiness. */
  abstract ping(): Promise<void>;
}
