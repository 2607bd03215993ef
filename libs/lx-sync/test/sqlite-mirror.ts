import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MirrorStore } from '../src/store/mirror-store';
import { openMirrorStore } from '../src/store/open-mirror-store';

/** A SQLite mirror in a folder of its own for the test file's tests, closed and removed after them. */
export function useSqliteMirror(): () => MirrorStore {
  const dir = mkdtempSync(join(tmpdir(), 'lx-sync-test-'));
  let store: MirrorStore | undefined;
  beforeAll(async () => {
    store = await openMirrorStore(join(dir, 'mirror.db'));
  });
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return () => store!;
}
