import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { extname } from 'node:path';

/** How far an upload got: bytes and rows sent so far (rows counted by line ends, minus a CSV header). */
export interface UploadProgress {
  bytesSent: number;
  totalBytes: number;
  rowsSent: number;
}

export interface UploadOptions {
  /** Base URL of location-command, e.g. http://127.0.0.1:3002. */
  baseUrl: string;
  file: string;
  token: string;
  mode: 'merge' | 'full-replace';
  /** full-replace: the number of locations it may retire, when that is above the service's share (the 409's number). */
  confirmRetirements?: number;
  /** Taken from the file extension when absent (.csv, else NDJSON). */
  format?: 'csv' | 'ndjson';
  onProgress?: (progress: UploadProgress) => void;
}

/** The service's answer: status and parsed JSON body. */
export interface UploadResult {
  status: number;
  body: unknown;
}

const CONTENT_TYPES = { csv: 'text/csv', ndjson: 'application/x-ndjson' } as const;
const NEWLINE = 0x0a;

/** The format of a file by its extension: .csv is CSV, anything else (.ndjson, .jsonl) NDJSON. */
export function formatOf(file: string): 'csv' | 'ndjson' {
  return extname(file).toLowerCase() === '.csv' ? 'csv' : 'ndjson';
}

/**
 * Streams a file to POST /operator/imports with chunked transfer encoding and resolves with the report. The file is
 * read as fast as the service consumes it (TCP back-pressure), so progress follows the import, and memory stays flat.
 */
export async function uploadImportFile(options: UploadOptions): Promise<UploadResult> {
  const format = options.format ?? formatOf(options.file);
  const totalBytes = (await stat(options.file)).size;
  const url = new URL(`/operator/imports?mode=${options.mode}`, options.baseUrl);
  if (options.confirmRetirements !== undefined) {
    url.searchParams.set('confirmRetirements', String(options.confirmRetirements));
  }
  const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${options.token}`,
      'content-type': CONTENT_TYPES[format],
      'transfer-encoding': 'chunked',
      accept: 'application/json',
    },
  });
  const progress: UploadProgress = { bytesSent: 0, totalBytes, rowsSent: format === 'csv' ? -1 : 0 };
  const file = createReadStream(options.file, { highWaterMark: 256 * 1024 });
  let lastByte = NEWLINE;
  file.on('data', (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    progress.bytesSent += bytes.length;
    for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, at + 1)) progress.rowsSent += 1;
    lastByte = bytes[bytes.length - 1] ?? lastByte;
    options.onProgress?.({ ...progress });
  });
  file.on('end', () => {
    if (lastByte !== NEWLINE && progress.bytesSent > 0) progress.rowsSent += 1;
    options.onProgress?.({ ...progress, rowsSent: Math.max(progress.rowsSent, 0) });
  });

  const response = new Promise<IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
    file.once('error', (error) => {
      request.destroy(error);
      reject(error);
    });
  });
  file.pipe(request);
  const reply = await response;
  // The service may answer before the whole file was sent (a bad header, a refused token): stop sending then.
  file.unpipe(request);
  file.destroy();
  const chunks: Buffer[] = [];
  for await (const chunk of reply) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's error page): keep the text.
  }
  return { status: reply.statusCode ?? 0, body };
}
