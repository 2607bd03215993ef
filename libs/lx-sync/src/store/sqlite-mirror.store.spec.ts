import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeMirrorStore } from '../../test/mirror-store.contract';
import { openMirrorStore } from './open-mirror-store';

const dir = mkdtempSync(join(tmpdir(), 'lx-sync-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeMirrorStore('SQLite', () => openMirrorStore(join(dir, 'mirror.db')));
