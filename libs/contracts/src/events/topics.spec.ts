import {
  ALL_TOPICS,
  CONSUMER_GROUP_MAX_LENGTH,
  dlqTopic,
  dlqTopicSpec,
  KAFKA_TOPIC_NAME_MAX_LENGTH,
  prefixedName,
  topicCreationOf,
  TOPIC_PREFIX_MAX_LENGTH,
  topicPrefixProblem,
  TOPICS,
} from './topics';

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

describe('topicPrefixProblem', () => {
  it.each(['', 'staging', 'eu-1.prod', 'team_a.lx-2', 'p'.repeat(TOPIC_PREFIX_MAX_LENGTH)])(
    'given the prefix "%s", when checked, then nothing is wrong',
    (prefix) => {
      expect(topicPrefixProblem(prefix)).toBeUndefined();
    },
  );

  it.each([
    ['with a space', 'stag ing', 'must be letters, digits, ".", "_" and "-" only'],
    ['with a slash', 'team/a', 'must be letters, digits, ".", "_" and "-" only'],
    ['with a letter outside ASCII', 'prød', 'must be letters, digits, ".", "_" and "-" only'],
    ['ending with the joining dot', 'staging.', 'must not start or end with "."'],
    ['starting with a dot', '.staging', 'must not start or end with "."'],
    ['one character too long', 'p'.repeat(TOPIC_PREFIX_MAX_LENGTH + 1), 'must be at most 64 characters'],
  ])('given a prefix %s, when checked, then the problem is named', (_, prefix, problem) => {
    expect(topicPrefixProblem(prefix)).toBe(problem);
  });

  it('given the longest prefix, topic and configured group, when the dead-letter topic is named, then Kafka accepts its length', () => {
    const longestTopic = TOPICS.locationGroupEvents.name;
    expect(Math.max(...ALL_TOPICS.map((topic) => topic.name.length))).toBe(longestTopic.length);
    // The webhook dispatcher's subscriptions projection dead-letters under `<WEBHOOK_CONSUMER_GROUP>-subscriptions`.
    const longestGroup = `${'g'.repeat(CONSUMER_GROUP_MAX_LENGTH)}-subscriptions`;
    const name = prefixedName('p'.repeat(TOPIC_PREFIX_MAX_LENGTH), dlqTopic(longestTopic, longestGroup));
    expect(name.length).toBeLessThanOrEqual(KAFKA_TOPIC_NAME_MAX_LENGTH);
  });
});

describe('prefixedName', () => {
  it('given no prefix, when a topic is named, then it keeps its declared name', () => {
    expect(prefixedName('', TOPICS.locationEvents.name)).toBe('location.events.v1');
  });

  it('given a prefix, when a topic, a dead-letter topic and a group are named, then each is <prefix>.<name>', () => {
    expect(prefixedName('staging', TOPICS.locationEvents.name)).toBe('staging.location.events.v1');
    expect(prefixedName('staging', dlqTopic('location.events.v1', 'location-query'))).toBe(
      'staging.location.events.v1.location-query.dlq',
    );
    expect(prefixedName('staging', 'location-query')).toBe('staging.location-query');
  });
});

describe('topicCreationOf', () => {
  it('given a declared topic, when turned into a creation request, then it keeps its partitions, retention and cleanup', () => {
    expect(topicCreationOf(TOPICS.clientEvents, { replicationFactor: 3, minInsyncReplicas: 2 })).toEqual({
      topic: 'client.events.v1',
      numPartitions: 1,
      replicationFactor: 3,
      configEntries: [
        { name: 'retention.ms', value: '-1' },
        { name: 'cleanup.policy', value: 'compact' },
        { name: 'min.insync.replicas', value: '2' },
      ],
    });
  });

  it('given a name on the cluster, when turned into a creation request, then the topic is created under that name', () => {
    const durability = { replicationFactor: 1, minInsyncReplicas: 1 };
    expect(topicCreationOf(TOPICS.locationEvents, durability, 'staging.location.events.v1')).toMatchObject({
      topic: 'staging.location.events.v1',
      numPartitions: 6,
      replicationFactor: 1,
    });
  });
});
