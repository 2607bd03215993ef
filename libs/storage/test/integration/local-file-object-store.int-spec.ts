import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { API_SECURITY_HEADERS } from '@lx/contracts';
import { LocalFileObjectStore, localFileDownloads } from '../../src';
import { bytes, describeObjectStoreContract, download } from './object-store-contract';

interface LocalFixture {
  store: LocalFileObjectStore;
  publicBaseUrl: string;
  /** The store's directory (not created until ensureBucket). */
  directory: string;
  close: () => Promise<void>;
}

/** Serves `listener` on 127.0.0.1 at a free port; resolves with its origin and a close that ends every connection. */
async function serve(listener: RequestListener): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** A store in a fresh temporary directory, with its downloads served over HTTP. */
async function startLocalStore(): Promise<LocalFixture> {
  const root = await mkdtemp(join(tmpdir(), 'lx-local-objects-'));
  const directory = join(root, 'objects');
  let handler: RequestListener = () => undefined;
  const server = await serve((req, res) => handler(req, res));
  const publicBaseUrl = `${server.origin}/downloads`;
  const store = new LocalFileObjectStore({ directory, publicBaseUrl, signingKey: randomBytes(32) });
  handler = localFileDownloads(store);
  return {
    store,
    publicBaseUrl,
    directory,
    close: async () => {
      await server.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Every file below `directory`, relative to it. */
async function filesBelow(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(directory.length + 1))
    .sort();
}

/** A body that yields `chunks` chunks of 64 KiB, then fails. */
function failingAfter(chunks: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent === chunks) return void this.destroy(new Error('the export query failed'));
      sent += 1;
      this.push(Buffer.alloc(64 * 1024, 'x'));
    },
  });
}

describeObjectStoreContract('LocalFileObjectStore in a temporary directory', startLocalStore);

describe('LocalFileObjectStore: what only the embedded adapter does', () => {
  let local: LocalFixture;
  const sign = (key: string, now = new Date()) =>
    local.store.presignGet(key, { expiresInSeconds: 60, filename: 'f.csv', contentType: 'text/csv', now });

  beforeAll(async () => {
    local = await startLocalStore();
  });
  afterAll(() => local?.close());

  it('rejects ping until the directory exists, then answers it', async () => {
    await expect(local.store.ping()).rejects.toThrow();
    await local.store.ensureBucket();
    await expect(local.store.ping()).resolves.toBeUndefined();
  });

  it('rejects ping when the directory is a file', async () => {
    const file = join(local.directory, '..', 'not-a-directory');
    await writeFile(file, '');
    const store = new LocalFileObjectStore({
      directory: file,
      publicBaseUrl: local.publicBaseUrl,
      signingKey: randomBytes(32),
    });
    await expect(store.ping()).rejects.toThrow('is not a directory');
  });

  it('stores a key as nested files under the directory, with no other file beside it', async () => {
    await local.store.ensureBucket();
    await local.store.put('exports/client-1/export-1.json', bytes('{}'), { contentType: 'application/json' });
    expect(await readFile(join(local.directory, 'exports', 'client-1', 'export-1.json'), 'utf8')).toBe('{}');
    expect(await filesBelow(join(local.directory, 'exports', 'client-1'))).toEqual(['export-1.json']);
  });

  it.each(['../escape.json', '/tmp/escape.json', 'exports/../../escape.json', 'exports\\escape.json', 'a\0b', ''])(
    'refuses the key %j on put, presign and remove, and writes nothing',
    async (key) => {
      await local.store.ensureBucket();
      const before = await filesBelow(join(local.directory, '..'));
      await expect(local.store.put(key, bytes('x'), { contentType: 'text/plain' })).rejects.toThrow(/object key/);
      await expect(sign(key)).rejects.toThrow(/object key/);
      await expect(local.store.remove(key)).rejects.toThrow(/object key/);
      expect(await filesBelow(join(local.directory, '..'))).toEqual(before);
    },
  );

  it('leaves no object and no temporary file when the body fails midway', async () => {
    await local.store.ensureBucket();
    const key = 'exports/failing/new.json';
    await expect(local.store.put(key, failingAfter(20), { contentType: 'application/json' })).rejects.toThrow(
      'the export query failed',
    );
    expect(existsSync(local.store.fileOf(key))).toBe(false);
    expect(await filesBelow(join(local.directory, 'exports', 'failing'))).toEqual([]);
    expect((await download((await sign(key)).url)).status).toBe(404);
  });

  it('keeps the previous object whole when a body replacing it fails midway', async () => {
    await local.store.ensureBucket();
    const key = 'exports/failing/kept.json';
    await local.store.put(key, bytes('previous'), { contentType: 'application/json' });
    await expect(local.store.put(key, failingAfter(20), { contentType: 'application/json' })).rejects.toThrow(
      'the export query failed',
    );
    expect(await filesBelow(join(local.directory, 'exports', 'failing'))).toEqual(['kept.json']);
    expect((await download((await sign(key)).url)).body).toBe('previous');
  });

  describe('downloads', () => {
    const key = 'exports/client-1/download.csv';

    beforeAll(async () => {
      await local.store.ensureBucket();
      await local.store.put(key, bytes('id\n1\n'), { contentType: 'text/csv' });
    });

    it.each(['POST', 'PUT', 'DELETE', 'PATCH'])(
      'answers %s with 405, Allow: GET, HEAD and the error body',
      async (method) => {
        const response = await download((await sign(key)).url, { method });
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe('GET, HEAD');
        expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(JSON.parse(response.body)).toEqual({
          error: { code: 'METHOD_NOT_ALLOWED', message: `${method} is not allowed on a download` },
        });
      },
    );

    it('answers HEAD with the headers of GET and no body', async () => {
      const response = await download((await sign(key)).url, { method: 'HEAD' });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/csv');
      expect(response.headers.get('content-length')).toBe('5');
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename="f.csv"; filename*=UTF-8''f.csv`);
      expect(response.body).toBe('');
    });

    it('serves a file and a refusal with the API security headers (never sniffed, framed or given a script)', async () => {
      const url = (await sign(key)).url;
      for (const response of [await download(url), await download(url.replace('signature=', 'signature=A'))]) {
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
        expect(response.headers.get('content-security-policy')).toBe(API_SECURITY_HEADERS['content-security-policy']);
        expect(response.headers.get('x-frame-options')).toBe('DENY');
      }
    });

    it.each([
      [
        'an altered signature',
        (url: URL) => url.searchParams.set('signature', 'A'.repeat(43)),
        'signature does not match',
      ],
      ['an altered file name', (url: URL) => url.searchParams.set('filename', 'evil.html'), 'signature does not match'],
      ['a later expiry', (url: URL) => url.searchParams.set('expires', '99999999999'), 'signature does not match'],
      ['no signature', (url: URL) => url.searchParams.delete('signature'), 'malformed or incomplete'],
      ['no query', (url: URL) => void (url.search = ''), 'malformed or incomplete'],
      [
        'another key',
        (url: URL) => void (url.pathname = url.pathname.replace('download.csv', 'other.csv')),
        'signature does not match',
      ],
    ])('answers a URL with %s 403 FORBIDDEN', async (_case, alter, message) => {
      const url = new URL((await sign(key)).url);
      alter(url);
      const response = await download(url.toString());
      expect(response.status).toBe(403);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(JSON.parse(response.body)).toEqual({
        error: { code: 'FORBIDDEN', message: expect.stringContaining(message) },
      });
    });

    it('answers an expired URL 403 FORBIDDEN saying it expired', async () => {
      const response = await download((await sign(key, new Date(Date.now() - 120_000))).url);
      expect(response.status).toBe(403);
      expect(JSON.parse(response.body)).toEqual({
        error: { code: 'FORBIDDEN', message: 'The download URL has expired' },
      });
    });

    it('answers a validly signed URL of a missing object 404 RESOURCE_NOT_FOUND', async () => {
      const response = await download((await sign('exports/client-1/missing.csv')).url);
      expect(response.status).toBe(404);
      expect(JSON.parse(response.body)).toEqual({
        error: { code: 'RESOURCE_NOT_FOUND', message: 'The file of this download does not exist' },
      });
    });

    it('answers a validly signed URL of a key that names a directory 404', async () => {
      expect((await download((await sign('exports/client-1')).url)).status).toBe(404);
    });

    it.each([
      ['a traversal', '/downloads/..%2F..%2Fetc%2Fpasswd'],
      ['an encoded dot segment', '/downloads/exports/%2e%2e/client-1/download.csv'],
      ['a bad percent encoding', '/downloads/exports/%E0%A4%A'],
      ['a NUL', '/downloads/exports/a%00b'],
      ['an empty key', '/downloads/'],
    ])('answers a path with %s 403, never 500', async (_case, path) => {
      const signed = new URL((await sign(key)).url);
      const response = await download(`${signed.origin}${path}${signed.search}`);
      expect(response.status).toBe(403);
      expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'FORBIDDEN' } });
    });

    it('answers a path outside the download path 404', async () => {
      const signed = new URL((await sign(key)).url);
      const response = await download(`${signed.origin}/elsewhere/${key}${signed.search}`);
      expect(response.status).toBe(404);
      expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'RESOURCE_NOT_FOUND' } });
    });

    it('answers an unexpected failure 500 with only an error id, and tells onError', async () => {
      // A symbolic link to itself: opening it fails with ELOOP, which no request can cause on its own.
      const loop = 'exports/client-1/loop.csv';
      await symlink('loop.csv', local.store.fileOf(loop));
      const reported: Array<{ error: unknown; errorId: string }> = [];
      const failing = await serve(
        localFileDownloads(local.store, { onError: (error, errorId) => reported.push({ error, errorId }) }),
      );
      try {
        const signed = new URL((await sign(loop)).url);
        const response = await download(`${failing.origin}${signed.pathname}${signed.search}`);
        expect(response.status).toBe(500);
        expect(reported).toEqual([{ error: expect.objectContaining({ code: 'ELOOP' }), errorId: expect.any(String) }]);
        expect(JSON.parse(response.body)).toEqual({
          error: { code: 'INTERNAL_ERROR', message: 'Internal error', details: { errorId: reported[0]!.errorId } },
        });
      } finally {
        await failing.close();
      }
    });

    it('takes the time from the injected clock', async () => {
      const late = await serve(localFileDownloads(local.store, { now: () => new Date(Date.now() + 120_000) }));
      try {
        const signed = new URL((await sign(key)).url);
        expect((await download(`${late.origin}${signed.pathname}${signed.search}`)).status).toBe(403);
      } finally {
        await late.close();
      }
    });
  });
});
