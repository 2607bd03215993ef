// lx-sync as a library: the same commands as the CLI, on a mirror opened from a configuration.
export { LxApiClient, MIRROR_RESOURCES, type MirrorResource } from './api/lx-api.client';
export { readExportFile } from './api/export-file.reader';
export { loadLxSyncConfig, type LxSyncConfig, CONFIG_VARIABLES } from './config/lx-sync.config';
export { LxSyncError, type LxSyncErrorCode, EXIT } from './errors';
export { LxSync } from './lx-sync';
export { openMirrorStore } from './store/open-mirror-store';
export { MIRROR_TABLES, type MirrorStore, type MirrorRow } from './store/mirror-store';
export type { DriftReport, DriftedId } from './use-cases/verify-mirror.use-case';
export { digestColumnsOf } from './digest/mirror-digest';
