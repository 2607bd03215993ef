import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AlreadyRunningError, DataFolder } from './data-folder';

describe('DataFolder', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'lx-data-folder-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('lets one process hold the lock and refuses another while that process lives', () => {
    const folder = new DataFolder(root);
    folder.lock();
    expect(readFileSync(join(root, 'lx.pid'), 'utf8')).toBe(String(process.pid));
    // The parent of this test process is alive: its pid in the lock file stands for another running start.
    writeFileSync(join(root, 'lx.pid'), String(process.ppid));
    expect(() => new DataFolder(root).lock()).toThrow(AlreadyRunningError);
    folder.unlock();
  });

  it('takes over a lock left by a process that is gone', () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(join(root, 'lx.pid'), gone.stdout);
    const folder = new DataFolder(root);
    folder.lock();
    expect(readFileSync(join(root, 'lx.pid'), 'utf8')).toBe(String(process.pid));
    folder.unlock();
    expect(existsSync(join(root, 'lx.pid'))).toBe(false);
  });

  it('keeps its secrets across starts, and a reset forgets them and everything else but the lock', () => {
    const folder = new DataFolder(root);
    folder.lock();
    const secrets = folder.secrets();
    expect(new DataFolder(root).secrets()).toEqual(secrets);
    expect(Buffer.from(secrets.encryptionKey, 'base64')).toHaveLength(32);
    expect(secrets.encryptionKey).not.toBe(secrets.webhookSecretTransportKey);
    writeFileSync(join(root, 'demo.json'), '{}');
    folder.markInitialised();
    expect(folder.initialised).toBe(true);

    folder.reset();
    expect(folder.initialised).toBe(false);
    expect(existsSync(join(root, 'demo.json'))).toBe(false);
    expect(existsSync(join(root, 'lx.pid'))).toBe(true);
    expect(folder.secrets()).not.toEqual(secrets);
    folder.unlock();
  });

  it('resets only while it holds the lock', () => {
    expect(() => new DataFolder(root).reset()).toThrow('reset needs the lock');
  });
});
