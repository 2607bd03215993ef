import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ObjectStore } from '../../src';

const MIB = 1024 * 1024;

/** What a contract run needs of an adapter; `setup` runs in beforeAll, `close` in afterAll. */
export interface ObjectStoreFixture {
  store: ObjectStore;
  /** What every download URL of the store starts with. */
  publicBaseUrl: string;
  /** Releases what setup started (a server, a directory). */
  close?: () => Promise<void>;
}

/** A stream of `size` pseudo-random bytes produced chunk by chunk, and the digest of what it produced. */
export function generated(size: number): { stream: Readable; digest: () => string } {
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

export const bytes = (text: string): Readable => Readable.from([Buffer.from(text)]);

/** GETs a URL and reads the whole body, so no connection is left half-read. */
export async function download(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; body: string; headers: Headers }> {
  const response = await fetch(url, init);
  return { status: response.status, body: await response.text(), headers: response.headers };
}

/** The URL with the value of one query parameter (the first whose name matches) replaced. */
function withParameter(url: string, name: RegExp | string, change: (value: string) => string): string {
  const parsed = new URL(url);
  const entry = [...parsed.searchParams].find(([key, value]) =>
    typeof name === 'string' ? value === name : name.test(key),
  );
  if (entry === undefined) throw new Error(`no parameter ${String(name)} in ${url}`);
  parsed.searchParams.set(entry[0], change(entry[1]));
  return parsed.toString();
}

/**
 * The behaviour every ObjectStore adapter shares, run against each one: the same tests, so an adapter that passes
 * can replace another. Download URLs are fetched as an RSP would, with no other credentials.
 */
export function describeObjectStoreContract(name: string, setup: () => Promise<ObjectStoreFixture>): void {
  describe(`${name}: the ObjectStore contract`, () => {
    let fixture: ObjectStoreFixture;
    const store = (): ObjectStore => fixture.store;
    const sign = (key: string, options: { expiresInSeconds?: number; now?: Date; contentType?: string } = {}) =>
      store().presignGet(key, {
        expiresInSeconds: options.expiresInSeconds ?? 60,
        filename: 'small.csv',
        contentType: options.contentType ?? 'text/csv',
        now: options.now ?? new Date(),
      });

    beforeAll(async () => {
      fixture = await setup();
      await fixture.store.ensureBucket();
    });
    afterAll(() => fixture?.close?.());

    it('creates its bucket idempotently and then answers ping', async () => {
      await store().ensureBucket();
      await expect(store().ping()).resolves.toBeUndefined();
    });

    it('streams a big upload, and a presigned GET returns the same bytes with download headers', async () => {
      const size = 19 * MIB + 12345; // MinIO takes it in three parts of at most 8 MiB
      const source = generated(size);
      const key = 'exports/it/locations.json';

      await expect(store().put(key, source.stream, { contentType: 'application/json' })).resolves.toEqual({ size });

      const now = new Date();
      const signed = await store().presignGet(key, {
        expiresInSeconds: 3600,
        filename: 'locations-2026-11-22.json',
        contentType: 'application/json',
        now,
      });
      expect(signed.expiresAt.getTime()).toBe(now.getTime() + 3_600_000);
      expect(signed.url.startsWith(fixture.publicBaseUrl)).toBe(true);

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

    it('answers with the content type and file name of the signed URL, not those of the upload', async () => {
      const key = 'exports/it/other-type.bin';
      await store().put(key, bytes('a;b\n'), { contentType: 'application/octet-stream' });
      const signed = await store().presignGet(key, {
        expiresInSeconds: 60,
        filename: 'lieux "été".csv',
        contentType: 'text/csv; charset=utf-8',
        now: new Date(),
      });
      const response = await download(signed.url);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(response.headers.get('content-disposition')).toBe(
        `attachment; filename="lieux __t__.csv"; filename*=UTF-8''lieux%20%22%C3%A9t%C3%A9%22.csv`,
      );
      expect(response.body).toBe('a;b\n');
    });

    it('refuses with 403 a URL whose signature was altered, and still serves the unaltered one', async () => {
      const key = 'exports/it/small.csv';
      await store().put(key, bytes('id\n1\n'), { contentType: 'text/csv' });
      const valid = await sign(key);
      const tampered = withParameter(
        valid.url,
        /signature$/i,
        (value) => `${value[0] === '0' ? '1' : '0'}${value.slice(1)}`,
      );
      expect((await download(tampered)).status).toBe(403);
      expect(await download(valid.url)).toMatchObject({ status: 200, body: 'id\n1\n' });
    });

    it('refuses with 403 a URL whose signed content type was altered', async () => {
      const key = 'exports/it/small.csv';
      await store().put(key, bytes('id\n1\n'), { contentType: 'text/csv' });
      const valid = await sign(key, { contentType: 'text/csv' });
      expect((await download(withParameter(valid.url, 'text/csv', () => 'text/html'))).status).toBe(403);
    });

    it('refuses with 403 a URL with a parameter added', async () => {
      const key = 'exports/it/small.csv';
      await store().put(key, bytes('id\n1\n'), { contentType: 'text/csv' });
      const valid = await sign(key);
      expect((await download(`${valid.url}&extra=1`)).status).toBe(403);
    });

    it('refuses with 403 a URL after it expired', async () => {
      const key = 'exports/it/small.csv';
      await store().put(key, bytes('id\n1\n'), { contentType: 'text/csv' });
      const expired = await sign(key, { expiresInSeconds: 60, now: new Date(Date.now() - 120_000) });
      expect(expired.expiresAt.getTime()).toBeLessThan(Date.now());
      expect((await download(expired.url)).status).toBe(403);
    });

    it('answers 404 to a validly signed URL once its object is removed', async () => {
      const key = 'exports/it/removed.csv';
      await store().put(key, bytes('id\n'), { contentType: 'text/csv' });
      const signed = await sign(key);
      expect((await download(signed.url)).status).toBe(200);
      await store().remove(key);
      expect((await download(signed.url)).status).toBe(404);
    });

    it('answers 404 to a validly signed URL of a key never stored', async () => {
      expect((await download((await sign('exports/it/never-stored.csv')).url)).status).toBe(404);
    });

    it('replaces the object when put again under its key', async () => {
      const key = 'exports/it/replaced.csv';
      await expect(store().put(key, bytes('first version\n'), { contentType: 'text/csv' })).resolves.toEqual({
        size: 14,
      });
      const signed = await sign(key);
      expect((await download(signed.url)).body).toBe('first version\n');
      await expect(store().put(key, bytes('second\n'), { contentType: 'text/csv' })).resolves.toEqual({ size: 7 });
      const response = await download(signed.url);
      expect(response).toMatchObject({ status: 200, body: 'second\n' });
      expect(response.headers.get('content-length')).toBe('7');
    });

    it('resolves the removal of a key that does not exist', async () => {
      await expect(store().remove('exports/it/never-stored.csv')).resolves.toBeUndefined();
    });
  });
}
