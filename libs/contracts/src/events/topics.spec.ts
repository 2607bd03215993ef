import { ALL_TOPICS, dlqTopic, dlqTopicSpec, TOPICS } from './topics';

describe('TOPICS', () => {
  it('given the catalog, when listed, then holds the seven topics once each', () => {
    expect(ALL_TOPICS.map((topic) => topic.name)).toEqual([
      'location.events.v1',
      'location-group.events.v1',
      'address-group.events.v1',
      'export.requests.v1',
      'export.events.v1',
      'client.events.v1',
      'webhook.events.v1',
    ]);
  });

  it('given every topic, when checked, then the name is <context>.<stream>.v<major> with a usable declaration', () => {
    for (const topic of ALL_TOPICS) {
      expect(topic.name).toMatch(/^[a-z]+(-[a-z]+)*\.[a-z]+\.v\d+$/);
      expect(topic.partitions).toBeGreaterThanOrEqual(1);
      expect(topic.retentionMs === -1 || topic.retentionMs > 0).toBe(true);
      expect(topic.description.length).toBeGreaterThan(0);
    }
  });

  it('given the event logs, when checked, then they keep events forever and only client state is compacted', () => {
    expect(TOPICS.locationEvents).toMatchObject({ retentionMs: -1, cleanupPolicy: 'delete' });
    expect(ALL_TOPICS.filter((topic) => topic.cleanupPolicy === 'compact').map((topic) => topic.name)).toEqual([
      'client.events.v1',
    ]);
  });
});

describe('dlqTopic', () => {
  it('given a topic and a consumer group, when named, then returns <topic>.<group>.dlq', () => {
    expect(dlqTopic('location.events.v1', 'statistics-projection')).toBe(
      'location.events.v1.statistics-projection.dlq',
    );
  });

  it('given a group with characters Kafka forbids, when named, then it throws', () => {
    expect(() => dlqTopic('export.events.v1', 'webhook dispatcher')).toThrow(
      'consumer group "webhook dispatcher" cannot be part of a Kafka topic name',
    );
  });

  it('given a topic and group, when declared, then the dead-letter topic is kept forever', () => {
    expect(dlqTopicSpec('export.events.v1', 'webhook-dispatcher')).toMatchObject({
      name: 'export.events.v1.webhook-dispatcher.dlq',
      partitions: 1,
      retentionMs: -1,
      cleanupPolicy: 'delete',
    });
  });

  it('given a topic and a group, when declared as dead-letter topic, then its description names both', () => {
    expect(dlqTopicSpec('location.events.v1', 'location-read').description).toBe(
      'Messages of location.events.v1 that consumer group location-read could not process, with the original bytes',
    );
  });
});
