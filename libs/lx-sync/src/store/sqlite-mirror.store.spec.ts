import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeMirrorStore } from '../../test/mirror-store.contract';
import { openMirrorStore } from './open-mirror-store';

const dir = mkdtempSync(join(tmpdir(), 'lx-sync-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeMirrorStore('SQLite', () => openMirrorStore(join(dir, 'mirror.db')));

describe('SQLite mirror file', () => {
  it('is used by one process at a time, and a lock left by a dead process is removed', async () => {
    const file = join(dir, 'claimed.db');
    const first = await openMirrorStore(file);
    const { execFileSync } = await import('node:child_process');
    const other = execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).toString();
    await first.close();
    // A process that died holding the file: its pid and its lock directory are still there.
    const { mkdirSync, writeFileSync } = await import('node:fs');
    writeFileSync(`${file}.lx-sync.pid`, other);
    mkdirSync(`${file}.lock`);
    const reopened = await openMirrorStore(file);
    await reopened.transaction((tx) => tx.setState('k', 'v'));
    expect(await reopened.state('k')).toBe('v');
    await reopened.close();
    // A live holder (this test's parent process stands in for another lx-sync): refused, naming it.
    writeFileSync(`${file}.lx-sync.pid`, String(process.ppid));
    await expect(openMirrorStore(file)).rejects.toThrow(`another lx-sync (pid ${process.ppid}) is using`);
  });
});
