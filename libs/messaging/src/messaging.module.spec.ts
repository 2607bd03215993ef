import { Pool } from 'pg';
import { KafkaEventBus } from './kafka-event-bus';
import { EventBusReadinessCheck, eventBusFor } from './messaging.module';
import { PostgresEventLog } from './postgres-event-log';

const kafka = { brokers: ['k1:9092'], clientId: 'svc', topicPrefix: '', replicationFactor: 1, minInsyncReplicas: 1 };

describe('eventBusFor (EVENT_BUS)', () => {
  it('given kafka, then the kafkajs adapter, whatever pool there is', () => {
    expect(eventBusFor({ driver: 'kafka', kafka }, undefined)).toBeInstanceOf(KafkaEventBus);
  });

  it('given postgres and the service pool, then the event log over that pool (nothing connects before it is used)', async () => {
    const pool = new Pool({ connectionString: 'postgresql://nobody@127.0.0.1:1/none' });
    expect(eventBusFor({ driver: 'postgres' }, pool)).toBeInstanceOf(PostgresEventLog);
    await pool.end();
  });

  it('given postgres without a database module, then it says what is missing', () => {
    expect(() => eventBusFor({ driver: 'postgres' }, undefined)).toThrow(
      'EVENT_BUS=postgres needs the service database (DatabaseModule)',
    );
  });
});

describe('EventBusReadinessCheck', () => {
  it('given kafka, then readiness names the check kafka', () => {
    expect(new EventBusReadinessCheck(eventBusFor({ driver: 'kafka', kafka }, undefined)).name).toBe('kafka');
  });

  it('given postgres, then readiness names the check eventLog, not kafka', async () => {
    const pool = new Pool({ connectionString: 'postgresql://nobody@127.0.0.1:1/none' });
    expect(new EventBusReadinessCheck(eventBusFor({ driver: 'postgres' }, pool)).name).toBe('eventLog');
    await pool.end();
  });
});
