import { randomUUID } from 'node:crypto';
import { KAFKA_HEADERS, TOPICS } from '@lx/contracts';
import { KafkaEventBus } from '@lx/messaging';
import { type EventLog, startEventLog, testKafka } from '@lx/testing';

/**
 * The tests' event log shares its topics with the tests of its file, some of which publish malformed messages on
 * purpose (dead-letter tests).
 * It must step over them: a consumer that threw on one kept restarting from that message, and every later event of
 * the run stopped arriving (the relay-crash test then timed out waiting for events the relay had published).
 */
describe('the test event log on shared topics', () => {
  const kafka = testKafka();
  const bus = new KafkaEventBus(kafka);
  let log: EventLog;

  beforeAll(async () => {
    log = await startEventLog(kafka, [TOPICS.locationGroupEvents.name]);
  });

  afterAll(async () => {
    await log.close();
    await bus.close();
  });

  it('records a malformed message as unreadable and goes on with the next one on its partition', async () => {
    const key = randomUUID();
    const event = {
      id: randomUUID(),
      type: 'LOCATION_GROUP_CREATED',
      timestamp: new Date().toISOString(),
      source: 'it',
      data: { id: key, name: 'after the malformed one', type: 'OTHER' },
    };
    // One key: one partition, the valid message after the malformed one.
    await bus.publish(TOPICS.locationGroupEvents.name, [
      { key, value: 'not json', headers: {} },
      { key, value: JSON.stringify(event), headers: { [KAFKA_HEADERS.aggregateVersion]: '1' } },
    ]);

    const [received] = await log.waitFor(1, [key], 60_000);
    expect(received!.event).toEqual(event);
    expect(received!.version).toBe(1);
    expect(log.unreadable.filter((message) => message.key === key)).toEqual([
      expect.objectContaining({ topic: TOPICS.locationGroupEvents.name, key }),
    ]);
  });
});
