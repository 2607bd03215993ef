/**
 * A process that runs nothing but location-command's relay of its event log (OutboxModule.forSource(EventLog), as the
 * service wires it) against a given schema, so a test can kill it for real. With CRASH_AFTER_PUBLISHES=n it SIGKILLs
 * itself right after the n-th batch was acknowledged by Kafka and before the relay moves its checkpoint: the one
 * instant where a crash must lead to a re-publish and never to a loss. It prints `published <n>` per batch sent.
 *
 * Env: DATABASE_URL, DATABASE_SCHEMA, KAFKA_BROKERS and its login (KAFKA_TLS, KAFKA_SASL_…), KAFKA_TOPIC_PREFIX,
 * KAFKA_REPLICATION_FACTOR and KAFKA_MIN_INSYNC_REPLICAS (the test file's), RELAY_BATCH_SIZE,
 * CRASH_AFTER_PUBLISHES (optional).
 * Run with: node -r ./libs/testing/register-swc.js <this file>
 */
import 'reflect-metadata';
import { Global, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventBus, KafkaEventBus, type OutgoingMessage, OutboxModule } from '@lx/messaging';
import { DatabaseModule, type KafkaConfig, MetricsModule } from '@lx/platform';
import { testKafkaLogin } from '@lx/testing';
import { EventLog } from '../../src/event-store/event-log';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is required`);
  return value;
};

/** The real Kafka adapter, with a kill switch after the n-th acknowledged publish. */
class CrashingKafkaEventBus extends KafkaEventBus {
  private publishes = 0;

  constructor(
    config: KafkaConfig,
    private readonly crashAfter: number | undefined,
  ) {
    super(config);
  }

  override async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    await super.publish(topic, messages);
    this.publishes += 1;
    process.stdout.write(`published ${messages.length}\n`);
    if (this.publishes === this.crashAfter) process.kill(process.pid, 'SIGKILL');
  }
}

async function main(): Promise<void> {
  const crashAfter = process.env['CRASH_AFTER_PUBLISHES'] ? Number(process.env['CRASH_AFTER_PUBLISHES']) : undefined;
  const bus = new CrashingKafkaEventBus(
    {
      brokers: env('KAFKA_BROKERS').split(','),
      clientId: 'relay-crash-test',
      topicPrefix: env('KAFKA_TOPIC_PREFIX'),
      replicationFactor: Number(env('KAFKA_REPLICATION_FACTOR')),
      minInsyncReplicas: Number(env('KAFKA_MIN_INSYNC_REPLICAS')),
      ...testKafkaLogin(),
    },
    crashAfter,
  );

  @Global()
  @Module({ providers: [{ provide: EventBus, useValue: bus }], exports: [EventBus] })
  class CrashableMessagingModule {}

  @Module({
    imports: [
      MetricsModule,
      DatabaseModule.forRoot({
        config: { url: env('DATABASE_URL'), schema: env('DATABASE_SCHEMA'), poolSize: 2, migrateOnBoot: false },
        entities: [],
        migrations: [],
      }),
      CrashableMessagingModule,
      OutboxModule.forSource(EventLog, { batchSize: Number(env('RELAY_BATCH_SIZE')), pollIntervalMs: 20 }),
    ],
  })
  class RelayProcessModule {}

  const app = await NestFactory.createApplicationContext(RelayProcessModule, { logger: ['error', 'warn'] });
  app.enableShutdownHooks();
  await app.init();
  process.stdout.write('relay started\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`relay process failed: ${String(error)}\n`);
  process.exit(1);
});
