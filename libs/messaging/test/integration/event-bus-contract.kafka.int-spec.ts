import { testKafka } from '@lx/testing';
import { KafkaEventBus } from '../../src';
import { describeEventBusContract } from './event-bus-contract';

describeEventBusContract('Kafka (KafkaEventBus against the real broker)', async () => {
  // Under the test file's topic prefix: the contract holds with the names translated.
  const bus = new KafkaEventBus(testKafka());
  return { bus, close: () => bus.close() };
});
