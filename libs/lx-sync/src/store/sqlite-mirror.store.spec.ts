import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { describeMirrorStore } from '../../test/mirror-store.contract';
import { openMirrorStore } from './open-mirror-store';

const dir = mkdtempSync(join(tmpdir(), 'lx-sync-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeMirrorStore('SQLite', () => openMirrorStore(join(dir, 'mirror.db')));

describe('SQLite mirror file', () => {
  it('is read by another process while lx-sync writes, which sees committed transactions only (WAL)', async () => {
    const file = join(dir, 'shared.db');
    const store = await openMirrorStore(file);
    const reader = `
      const Database = require('better-sqlite3');
      const db = new Database(process.argv[1], { readonly: true, timeout: 10000 });
      process.stdout.write(String(db.prepare('SELECT count(*) AS n FROM locations').get().n));`;
    const count = () => execFileSync(process.execPath, ['-e', reader, file], { cwd: __dirname }).toString();
    await store.transaction(async (tx) => {
      await tx.apply('locations', { id: randomUUID(), version: 1, deleted: false, body: '{}' });
    });
    // A transaction in flight: the other process reads the committed row only, and is not blocked.
    await store.transaction(async (tx) => {
      await tx.apply('locations', { id: randomUUID(), version: 1, deleted: false, body: '{}' });
      expect(count()).toBe('1');
    });
    expect(count()).toBe('2');
    await store.close();
  });
});
