import { existsSync } from 'node:fs';
import { loadLocationCommandConfig } from '../config/location-command.config';
import { relayThreadOf } from './relay-worker-data';

const required = {
  DATABASE_URL: 'postgresql://postgres@127.0.0.1:55432/lx',
  DATABASE_POOL_SIZE: '12',
  KAFKA_BROKERS: '127.0.0.1:19092',
  OUTBOX_BATCH_SIZE: '700',
  LOG_LEVEL: 'warn',
};

describe('relayThreadOf', () => {
  it('given RELAY_THREAD=main, when asked, then the relay gets no thread of its own', () => {
    expect(relayThreadOf(loadLocationCommandConfig({ ...required, RELAY_THREAD: 'main' }))).toBeUndefined();
  });

  it('given the default, when asked, then the worker entry exists and gets the settings with two connections, never migrating', () => {
    const config = loadLocationCommandConfig(required);

    const thread = relayThreadOf(config);

    expect(existsSync(thread!.file)).toBe(true);
    expect(thread!.file).toMatch(/relay\.worker\.ts$/);
    expect(thread!.data).toEqual({
      database: { ...config.database, poolSize: 2, migrateOnBoot: false },
      eventBus: config.eventBus,
      outbox: { batchSize: 700, pollIntervalMs: 50, lingerMs: 10 },
      tracing: config.http.tracing,
      logLevel: 'warn',
    });
  });
});
