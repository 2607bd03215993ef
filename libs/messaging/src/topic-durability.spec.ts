import { clusterSizeProblem, durabilityProblems, TopicDurabilityError } from './topic-durability';

const configured = { replicationFactor: 3, minInsyncReplicas: 2 };

describe('clusterSizeProblem', () => {
  it.each([3, 5])('given %i brokers for three replicas, then there is none', (brokers) => {
    expect(clusterSizeProblem(brokers, configured)).toBeUndefined();
  });

  it('given one broker for three replicas, then it names the brokers, the setting and the way out', () => {
    expect(clusterSizeProblem(1, configured)).toBe(
      'the Kafka cluster has 1 broker up, fewer than KAFKA_REPLICATION_FACTOR (3), so a topic cannot get 3 replicas: ' +
        'start more brokers, or set KAFKA_REPLICATION_FACTOR and KAFKA_MIN_INSYNC_REPLICAS to what the cluster has ' +
        '(1 and 1 for a single broker, which keeps no copy of an event if it fails)',
    );
  });

  it('given two brokers for three replicas, then the count is plural', () => {
    expect(clusterSizeProblem(2, configured)).toMatch(/^the Kafka cluster has 2 brokers up, fewer than/);
  });

  it('given one broker for one replica, then there is none', () => {
    expect(clusterSizeProblem(1, { replicationFactor: 1, minInsyncReplicas: 1 })).toBeUndefined();
  });
});

describe('durabilityProblems', () => {
  it('given topics with as many or more replicas and in-sync replicas than configured, then there are none', () => {
    expect(
      durabilityProblems(
        [
          { name: 'a', replicas: 3, minInsyncReplicas: 2 },
          { name: 'b', replicas: 5, minInsyncReplicas: 3 },
        ],
        configured,
      ),
    ).toEqual([]);
  });

  it('given a topic with fewer replicas, then it names the topic, both numbers and the tool that adds replicas', () => {
    expect(
      durabilityProblems([{ name: 'lx.location.events.v1', replicas: 1, minInsyncReplicas: 2 }], configured),
    ).toEqual([
      'topic lx.location.events.v1 has 1 replica, KAFKA_REPLICATION_FACTOR is 3: add replicas with ' +
        'kafka-reassign-partitions.sh --execute (a plan that lists 3 brokers for each partition)',
    ]);
  });

  it('given a topic with a lower min.insync.replicas, then it names the topic, both numbers and the command', () => {
    expect(durabilityProblems([{ name: 'client.events.v1', replicas: 3, minInsyncReplicas: 1 }], configured)).toEqual([
      'topic client.events.v1 has min.insync.replicas=1, KAFKA_MIN_INSYNC_REPLICAS is 2: kafka-configs.sh --alter ' +
        '--entity-type topics --entity-name client.events.v1 --add-config min.insync.replicas=2',
    ]);
  });

  it('given several topics short of both, then every shortfall of every topic is listed, in order', () => {
    const problems = durabilityProblems(
      [
        { name: 'a', replicas: 2, minInsyncReplicas: 1 },
        { name: 'b', replicas: 3, minInsyncReplicas: 2 },
        { name: 'c', replicas: 1, minInsyncReplicas: 2 },
      ],
      configured,
    );
    expect(problems.map((problem) => problem.split(',')[0])).toEqual([
      'topic a has 2 replicas',
      'topic a has min.insync.replicas=1',
      'topic c has 1 replica',
    ]);
  });

  it('given a topic whose min.insync.replicas the broker did not report, then it is a problem, not a pass', () => {
    expect(durabilityProblems([{ name: 'a', replicas: 3, minInsyncReplicas: undefined }], configured)).toEqual([
      'topic a: the broker reported no min.insync.replicas',
    ]);
  });
});

describe('TopicDurabilityError', () => {
  it('lists each problem on its own line and says how to resolve them', () => {
    expect(new TopicDurabilityError(['first', 'second']).message).toBe(
      'Kafka topics would be less durable than configured:\n  - first\n  - second\n' +
        'Raise the topics or the cluster as shown, or lower KAFKA_REPLICATION_FACTOR / KAFKA_MIN_INSYNC_REPLICAS ' +
        '(docs/configuration.md).',
    );
  });
});
