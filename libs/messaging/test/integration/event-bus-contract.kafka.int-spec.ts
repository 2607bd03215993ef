import { requireEnv, uniqueSuffix } from '@lx/testing';
import { KafkaEventBus } from '../../src';
import { describeEventBusContract } from './event-bus-contract';

describeEventBusContract('Kafka (KafkaEventBus against the real broker)', async () => {
  const bus = new KafkaEventBus({ brokers: requireEnv('KAFKA_BROKERS').split(','), clientId: `it-${uniqueSuffix()}` });
  return { bus, close: () => bus.close() };
});
