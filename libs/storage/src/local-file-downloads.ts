import { randomUUID } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { API_SECURITY_HEADERS, type ErrorCode, errorBody, httpStatusOf } from '@lx/contracts';
import { contentDisposition } from './content-disposition';
import { type LocalFileObjectStore, objectKeyProblem } from './local-file-object-store';

export interface LocalFileDownloadsOptions {
  now?: () => Date;
  /** Told every unexpected failure with the error id that the 500 answer carries (the answer carries nothing else). */
  onError?: (error: unknown, errorId: string) => void;
}

const REFUSALS = {
  malformed: 'The download URL is malformed or incomplete',
  signature: 'The download URL signature does not match',
  expired: 'The download URL has expired',
} as const;

/** Opening a file fails so when there is no object at the key (a directory or a too long name is none either). */
const ABSENT = new Set(['ENOENT', 'ENOTDIR', 'EISDIR', 'ENAMETOOLONG']);

function errorCodeOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
}

function answerError(
  req: IncomingMessage,
  res: ServerResponse,
  code: ErrorCode,
  message: string,
  extra: { headers?: Record<string, string>; details?: Record<string, unknown> } = {},
): void {
  const body = JSON.stringify(errorBody(code, message, extra.details));
  res.writeHead(httpStatusOf(code), {
    ...API_SECURITY_HEADERS,
    ...extra.headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** The key of a path below the download path; undefined when a segment is not valid percent-encoding. */
function keyOf(encoded: string): string | undefined {
  try {
    return encoded.split('/').map(decodeURIComponent).join('/');
  } catch {
    return undefined;
  }
}

async function serve(
  store: LocalFileObjectStore,
  now: () => Date,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return answerError(req, res, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed on a download`, {
      headers: { Allow: 'GET, HEAD' },
    });
  }
  // The raw target, not a parsed URL: WHATWG parsing would resolve `..` and `%2e%2e` and so change the signed key.
  const target = req.url ?? '';
  const queryAt = target.indexOf('?');
  const path = queryAt === -1 ? target : target.slice(0, queryAt);
  const prefix = `${store.downloadPath}/`;
  if (!path.startsWith(prefix)) return answerError(req, res, 'RESOURCE_NOT_FOUND', 'No download at this path');

  const key = keyOf(path.slice(prefix.length));
  const verification =
    key === undefined || objectKeyProblem(key) !== undefined
      ? ({ ok: false, reason: 'malformed' } as const)
      : store.verifyDownload(key, new URLSearchParams(queryAt === -1 ? '' : target.slice(queryAt + 1)), now());
  if (!verification.ok) return answerError(req, res, 'FORBIDDEN', REFUSALS[verification.reason]);
  const { grant } = verification;

  let handle: FileHandle;
  try {
    handle = await open(store.fileOf(grant.key), 'r');
  } catch (error) {
    if (ABSENT.has(String(errorCodeOf(error)))) {
      return answerError(req, res, 'RESOURCE_NOT_FOUND', 'The file of this download does not exist');
    }
    throw error;
  }
  try {
    // Size and content from one open file: a put replacing the object meanwhile renames a new file over the name.
    const file = await handle.stat();
    if (!file.isFile()) return answerError(req, res, 'RESOURCE_NOT_FOUND', 'The file of this download does not exist');
    // The API's security headers: a file is never sniffed into HTML, rendered in a frame or given a script to run.
    res.writeHead(200, {
      ...API_SECURITY_HEADERS,
      'Content-Type': grant.contentType,
      'Content-Length': file.size,
      'Content-Disposition': contentDisposition(grant.filename),
    });
    if (req.method === 'HEAD') return void res.end();
    await pipeline(handle.createReadStream({ autoClose: false }), res);
  } finally {
    await handle.close();
  }
}

/**
 * Plain Node request handler serving the download URLs of a LocalFileObjectStore (GET and HEAD of
 * `<publicBaseUrl path>/<key>?expires=…&filename=…&contentType=…&signature=…`): 200 with the file, 403 for a URL that
 * is expired, unsigned or altered, 404 for a signed URL whose object does not exist, 405 for other methods. Error
 * bodies are the API's `{ error: { code, message } }`.
 */
export function localFileDownloads(
  store: LocalFileObjectStore,
  options: LocalFileDownloadsOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const now = options.now ?? (() => new Date());
  return (req, res) => {
    serve(store, now, req, res).catch((error: unknown) => {
      if (res.headersSent) {
        // Mid-body there is no answer left to give: cut the connection so the client sees a short body.
        res.destroy();
        if (errorCodeOf(error) === 'ERR_STREAM_PREMATURE_CLOSE') return;
      }
      const errorId = randomUUID();
      options.onError?.(error, errorId);
      if (!res.headersSent) answerError(req, res, 'INTERNAL_ERROR', 'Internal error', { details: { errorId } });
    });
  };
}
