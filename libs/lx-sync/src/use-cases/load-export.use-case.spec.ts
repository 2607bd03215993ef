import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ExportStatus, LxApiClient } from '../api/lx-api.client';
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
 * includeVersions; it counts the exports created and can fail a download part-way, as a dropped connection would.
 */
class ExportSide {
  created = 0;
  failAfterBytes: number | undefined;
  createExport() {
    this.created++;
    return Promise.resolve(`export-${this.created}`);
  }
  exportStatus(requestId: string): Promise<ExportStatus> {
    return Promise.resolve({
      requestId,
      status: 'COMPLETED',
      exportUrl: 'http://file.test/export.json',
      downloadExpiresAt: new Date(Date.now() + 3600_000).toISOString(),
      exportTimestamp: '2026-11-27T06:00:00.000Z',
      totalCount: ROWS,
      sha256: createHash('sha256').update(file).digest('hex'),
    });
  }
  download() {
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
  let store: MirrorStore;
  beforeAll(async () => {
    store = await openMirrorStore(join(dir, 'mirror.db'));
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stopped part-way, goes on with the same export from the rows already committed', async () => {
    const side = new ExportSide();
    const load = new LoadExport(side as unknown as LxApiClient, store);
    side.failAfterBytes = Math.floor(file.length / 2);
    await expect(load.execute({})).rejects.toThrow('connection reset');
    const committed = Number(await store.state('loading.items'));
    expect(committed).toBeGreaterThanOrEqual(2000); // whole batches of 2,000, each with its position
    expect(await store.count('locations')).toBe(committed);

    side.failAfterBytes = undefined;
    await expect(load.execute({})).resolves.toEqual({ exportTimestamp: '2026-11-27T06:00:00.000Z', rows: ROWS + 1 });
    expect(side.created).toBe(1);
    expect(await store.count('locations')).toBe(ROWS);
    expect(await store.row('locations', ids[4]!)).toMatchObject({ version: 2 });
    expect(await store.row('locationGroups', ids[0]!)).toMatchObject({ version: 2, deleted: false });
    expect(await store.state(EXPORT_TIMESTAMP)).toBe('2026-11-27T06:00:00.000Z');
    expect(await store.state('loading.items')).toBeUndefined();
  });

  it('refuses a file that does not match the export sha256', async () => {
    const side = new ExportSide();
    side.exportStatus = (requestId: string) =>
      ExportSide.prototype.exportStatus.call(side, requestId).then((status) => ({ ...status, sha256: '0'.repeat(64) }));
    await expect(new LoadExport(side as unknown as LxApiClient, store).execute({})).rejects.toThrow(/sha256/);
  });
});
