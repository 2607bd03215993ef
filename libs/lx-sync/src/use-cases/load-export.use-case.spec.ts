import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ExportStatusReply } from '@lx/contracts';
import type { LxApiClient } from '../api/lx-api.client';
import type { MirrorStore } from '../store/mirror-store';
import { openMirrorStore } from '../store/open-mirror-store';
import { EXPORT_TIMESTAMP } from './catch-up-feed.use-case';
import { LoadExport } from './load-export.use-case';

const ROWS = 5000;
const ids = Array.from({ length: ROWS }, () => randomUUID());
const file = Buffer.from(
  JSON.stringify({
    exportTimestamp: '2026-11-27T06:00:00.000Z',
    totalCount: ROWS,
    locations: ids.map((id, index) => ({ id, n: index, version: 1 + (index % 3) })),
    locationGroups: [{ id: ids[0], name: 'G', type: 'OTHER', version: 2 }],
    addressGroups: [],
  }),
);

/**
 * The export side of the API (the port LoadExport uses), serving one completed export of a JSON file made with
 * includeVersions; it counts the exports created and the downloads, and can break a download part-way, as a dropped
 * connection would.
 */
class ExportSide {
  created = 0;
  downloads = 0;
  failAfterBytes: number | undefined;
  sha256 = createHash('sha256').update(file).digest('hex');
  createExport() {
    this.created++;
    return Promise.resolve(`00000000-0000-4000-8000-00000000000${this.created}`);
  }
  exportStatus(requestId: string): Promise<ExportStatusReply> {
    return Promise.resolve({
      requestId,
      format: 'json',
      createdAt: '2026-11-27T05:59:00.000Z',
      status: 'COMPLETED',
      exportUrl: 'http://file.test/export.json',
      downloadExpiresAt: new Date(Date.now() + 3600_000).toISOString(),
      exportTimestamp: '2026-11-27T06:00:00.000Z',
      totalCount: ROWS,
      sha256: this.sha256,
      sizeBytes: file.length,
    });
  }
  download() {
    this.downloads++;
    const limit = this.failAfterBytes;
    return Promise.resolve(
      Readable.from(
        (function* () {
          for (let at = 0; at < file.length; at += 4096) {
            if (limit !== undefined && at >= limit) throw new Error('connection reset');
            yield file.subarray(at, at + 4096);
          }
        })(),
      ),
    );
  }
}

describe('LoadExport', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lx-sync-load-'));
  let n = 0;
  const fresh = () => openMirrorStore(join(dir, `mirror-${++n}.db`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('checks the whole download before loading a row; a broken download loads nothing and is asked again', async () => {
    const store = await fresh();
    const side = new ExportSide();
    const load = new LoadExport(side as unknown as LxApiClient, store);
    side.failAfterBytes = Math.floor(file.length / 2);
    await expect(load.execute({})).rejects.toMatchObject({ code: 'EXPORT_FAILED', message: /broke off/ });
    expect(await store.count('locations')).toBe(0);
    side.failAfterBytes = undefined;
    await expect(load.execute({})).resolves.toEqual({ exportTimestamp: '2026-11-27T06:00:00.000Z', rows: ROWS + 1 });
    expect({ created: side.created, downloads: side.downloads }).toEqual({ created: 1, downloads: 2 });
    expect(await store.count('locations')).toBe(ROWS);
    expect(await store.row('locations', ids[4]!)).toMatchObject({ version: 2 });
    expect(await store.row('locationGroups', ids[0]!)).toMatchObject({ version: 2, deleted: false });
    expect(await store.state(EXPORT_TIMESTAMP)).toBe('2026-11-27T06:00:00.000Z');
    expect(await store.state('loading.items')).toBeUndefined();
    await store.close();
  });

  it('stopped while loading, goes on from the rows already committed, without downloading again', async () => {
    const store = await fresh();
    const side = new ExportSide();
    // The mirror's second transaction fails once (a crash after the first batch of rows was committed).
    let transactions = 0;
    const failing: MirrorStore = Object.create(store) as MirrorStore;
    failing.transaction = (work) => {
      if (++transactions === 4) return Promise.reject(new Error('disk full'));
      return store.transaction(work);
    };
    await expect(new LoadExport(side as unknown as LxApiClient, failing).execute({})).rejects.toThrow('disk full');
    const committed = Number(await store.state('loading.items'));
    expect(committed).toBe(2000);
    expect(await store.count('locations')).toBe(2000);
    await new LoadExport(side as unknown as LxApiClient, store).execute({});
    expect({ created: side.created, downloads: side.downloads }).toEqual({ created: 1, downloads: 1 });
    expect(await store.count('locations')).toBe(ROWS);
    await store.close();
  });

  it('refuses a file that does not match the export sha256: nothing loaded, the next run asks for a new export', async () => {
    const store = await fresh();
    const side = new ExportSide();
    side.sha256 = '0'.repeat(64);
    const load = new LoadExport(side as unknown as LxApiClient, store);
    await expect(load.execute({})).rejects.toMatchObject({ code: 'EXPORT_FAILED', message: /sha256/ });
    expect(await store.count('locations')).toBe(0);
    expect(await store.state('loading.exportId')).toBeUndefined();
    await store.close();
  });
});
