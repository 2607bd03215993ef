/**
 * location-command's relay in its worker thread (RELAY_THREAD=worker, the default): the event log's relay as the
 * service wires it in the main thread otherwise, built from the settings RelayThread hands over.
 */
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { workerData } from 'node:worker_threads';
import { MessagingModule, OutboxModule, serveRelayThread } from '@lx/messaging';
import { DatabaseModule, MetricsModule } from '@lx/platform';
import type { RelayWorkerData } from './relay-worker-data';
import { EventLog } from './event-log';

const data = workerData as RelayWorkerData;

// The relay stops before any module shuts down (beforeApplicationShutdown), then the producer and the pool close.
@Module({
  imports: [
    MetricsModule,
    DatabaseModule.forRoot({ config: data.database, entities: [], migrations: [] }),
    MessagingModule.forRoot(data.eventBus),
    OutboxModule.forSource(EventLog, data.outbox),
  ],
})
class RelayWorkerModule {}

serveRelayThread(RelayWorkerModule, { service: 'location-command', level: data.logLevel, tracing: data.tracing }).catch(
  (error: unknown) => {
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`location-command relay thread failed to start: ${detail}\n`);
    process.exit(1);
  },
);
