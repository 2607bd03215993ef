import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type DownloadVerification, downloadQuery, verifyDownload } from './local-file-signature';
import { ObjectStore, type PresignedUrl, type PresignOptions, type PutOptions } from './object-store';

export interface LocalFileStorageConfig {
  /** Where the objects live, one file per key: `exports/<clientId>/<id>.json` is `<directory>/exports/<clientId>/<id>.json`. */
  directory: string;
  /** Base of the download URLs, served by `localFileDownloads`; e.g. `http://127.0.0.1:8080/downloads`. */
  publicBaseUrl: string;
  /** HMAC-SHA256 key of the download URLs: at least 32 bytes. */
  signingKey: Buffer;
}

const MIN_SIGNING_KEY_BYTES = 32;

/** What a header value may hold (RFC 9110 field-value without obs-text); the content type is answered as a header. */
const HEADER_VALUE = /^[\x20-\x7e]+$/;

/**
 * Why `key` cannot name an object file, or undefined when it can. Besides what could leave the directory (absolute,
 * `..`, backslashes, NUL), a segment may be neither empty (`a//b` would be `a/b`) nor start with a dot: that keeps
 * `.` and `..` out and keeps every key apart from the temporary files (`.<name>.<uuid>.tmp`).
 */
export function objectKeyProblem(key: string): string | undefined {
  if (key === '') return 'is empty';
  if (key.startsWith('/')) return 'is absolute';
  if (key.includes('\\')) return 'contains a backslash';
  if (key.includes('\0')) return 'contains NUL';
  if (key.split('/').some((segment) => segment === '' || segment.startsWith('.'))) {
    return 'has an empty segment or one starting with a dot';
  }
  return undefined;
}

/**
 * The adapter of OBJECT_STORE=local (the embedded profile): objects are files under one directory, and download URLs are
 * HMAC-signed URLs that `localFileDownloads` serves. The content type and file name of a download come from the
 * signed URL (as S3's response-content-type does), so nothing is stored beside the object.
 */
export class LocalFileObjectStore extends ObjectStore {
  /** The path of publicBaseUrl without a trailing slash; downloads are served below it. */
  readonly downloadPath: string;
  private readonly baseUrl: string;

  constructor(private readonly config: Readonly<LocalFileStorageConfig>) {
    super();
    if (config.signingKey.length < MIN_SIGNING_KEY_BYTES) {
      throw new Error(`the signing key of LocalFileObjectStore holds at least ${MIN_SIGNING_KEY_BYTES} bytes`);
    }
    const base = new URL(config.publicBaseUrl);
    if (base.search !== '' || base.hash !== '') throw new Error('publicBaseUrl has no query or fragment');
    this.baseUrl = config.publicBaseUrl.replace(/\/+$/, '');
    this.downloadPath = base.pathname.replace(/\/+$/, '');
  }

  async ensureBucket(): Promise<void> {
    await mkdir(this.config.directory, { recursive: true });
  }

  async put(key: string, body: Readable, _options: PutOptions): Promise<{ size: number }> {
    const file = this.fileOf(key);
    await mkdir(dirname(file), { recursive: true });
    // Beside the object: rename is atomic only within one file system, and readers see the old file or the new one.
    const temporary = join(dirname(file), `.${basename(file)}.${randomUUID()}.tmp`);
    let size: number;
    try {
      const handle = await open(temporary, 'wx');
      // flush: fsync before close, so the data is on disk before the rename publishes it (otherwise a crash could
      // leave the name on an empty file). The stream closes the handle; the close here waits for it on failure.
      await pipeline(body, handle.createWriteStream({ flush: true })).finally(() => handle.close());
      size = (await stat(temporary)).size;
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    // The rename itself survives a crash only once the directory is synced.
    await syncDirectory(dirname(file));
    return { size };
  }

  presignGet(key: string, options: PresignOptions): Promise<PresignedUrl> {
    // The port is asynchronous; signing here is not, and a refusal still arrives as a rejection.
    return new Promise((resolve) => resolve(this.sign(key, options)));
  }

  /** Missing is not an error. Emptied directories stay: removing them would race with a put creating a sibling. */
  async remove(key: string): Promise<void> {
    await rm(this.fileOf(key), { force: true });
  }

  async ping(): Promise<void> {
    if (!(await stat(this.config.directory)).isDirectory()) {
      throw new Error(`${this.config.directory} is not a directory`);
    }
    await access(this.config.directory, constants.W_OK | constants.X_OK);
  }

  /** Checks the query of a download request for `key`; see verifyDownload. */
  verifyDownload(key: string, query: URLSearchParams, now: Date): DownloadVerification {
    return verifyDownload(key, query, this.config.signingKey, now);
  }

  /** The file of `key`; throws for a key that cannot name one. */
  fileOf(key: string): string {
    const problem = objectKeyProblem(key);
    if (problem !== undefined) throw new Error(`object key ${JSON.stringify(key)} ${problem}`);
    return join(this.config.directory, ...key.split('/'));
  }

  private sign(key: string, options: PresignOptions): PresignedUrl {
    this.fileOf(key);
    if (!Number.isInteger(options.expiresInSeconds) || options.expiresInSeconds < 1) {
      throw new Error('expiresInSeconds is a positive integer');
    }
    if (!HEADER_VALUE.test(options.contentType)) throw new Error('contentType is printable ASCII and not empty');
    const expiresAt = new Date(options.now.getTime() + options.expiresInSeconds * 1000);
    // Whole seconds, rounded down: the URL never outlives expiresAt.
    const expires = Math.floor(expiresAt.getTime() / 1000);
    const query = downloadQuery(
      { key, expires, filename: options.filename, contentType: options.contentType },
      this.config.signingKey,
    );
    return { url: `${this.baseUrl}/${key.split('/').map(encodeURIComponent).join('/')}?${query}`, expiresAt };
  }
}

async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
