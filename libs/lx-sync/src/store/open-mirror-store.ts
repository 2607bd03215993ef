import { PostgresMirrorStore } from './postgres-mirror.store';
import type { MirrorStore } from './mirror-store';
import { SqliteMirrorStore } from './sqlite-mirror.store';

/** LX_SYNC_DATABASE: a `postgres://` or `postgresql://` URL, else the path of a SQLite file. Tables are created. */
export async function openMirrorStore(database: string): Promise<MirrorStore> {
  const store = /^postgres(ql)?:\/\//.test(database)
    ? new PostgresMirrorStore(database)
    : new SqliteMirrorStore(database);
  try {
    await store.migrate();
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  return store;
}
