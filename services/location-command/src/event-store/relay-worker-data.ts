import { join } from 'node:path';
import type { RelayThreadOptions } from '@lx/messaging';
import type { LocationCommandConfig } from '../config/location-command.config';

/** What the relay's worker thread is started with: the service's settings it needs, as plain values. */
export interface RelayWorkerData {
  database: LocationCommandConfig['database'];
  eventBus: LocationCommandConfig['eventBus'];
  outbox: LocationCommandConfig['outbox'];
  logLevel: LocationCommandConfig['http']['logLevel'];
  tracing: LocationCommandConfig['http']['tracing'];
}

/** Where the relay runs: undefined for the main thread, else its worker thread (with two connections of its own). */
export function relayThreadOf(config: LocationCommandConfig): RelayThreadOptions | undefined {
  if (config.relayThread === 'main') return undefined;
  const data: RelayWorkerData = {
    database: { ...config.database, poolSize: 2, migrateOnBoot: false },
    eventBus: config.eventBus,
    outbox: config.outbox,
    logLevel: config.http.logLevel,
    tracing: config.http.tracing,
  };
  return { file: join(__dirname, `relay.worker${__filename.endsWith('.ts') ? '.ts' : '.js'}`), data };
}
