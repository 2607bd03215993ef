import { ALL_TOPICS, TOPICS } from '@lx/contracts';
import {
  aclEntryOf,
  KAFKA_SERVICES,
  KAFKA_TOPIC_ACCESS,
  type KafkaAcl,
  kafkaAclsCommandOf,
  kafkaAclsFor,
} from './kafka-acls';

const operationsOn = (acls: readonly KafkaAcl[], resourceName: string) =>
  acls.filter((acl) => acl.resourceName === resourceName).map((acl) => `${acl.patternType} ${acl.operation}`);

describe('kafkaAclsFor', () => {
  it('given location-command, then it writes the location and group topics, reads nothing and joins no group', () => {
    const acls = kafkaAclsFor('location-command', { topicPrefix: 'prod', user: 'lx-location-command' });
    expect(acls.filter((acl) => acl.operation === 'WRITE').map((acl) => acl.resourceName)).toEqual([
      'prod.location.events.v1',
      'prod.location-group.events.v1',
      'prod.address-group.events.v1',
    ]);
    expect(acls.filter((acl) => acl.operation === 'READ' || acl.resourceType === 'GROUP')).toEqual([]);
    expect(new Set(acls.map((acl) => acl.principal))).toEqual(new Set(['User:lx-location-command']));
  });

  it('given location-query, then it reads the three topics (once, for its two groups) and writes only its own dead-letter topics', () => {
    const acls = kafkaAclsFor('location-query', { topicPrefix: '', user: 'lq', groupId: 'lq-2' });
    expect(operationsOn(acls, 'location.events.v1')).toEqual([
      'LITERAL DESCRIBE',
      'LITERAL DESCRIBE_CONFIGS',
      'LITERAL CREATE',
      'LITERAL READ',
    ]);
    expect(operationsOn(acls, 'location.events.v1.lq-2.dlq')).toEqual([
      'LITERAL CREATE',
      'LITERAL WRITE',
      'LITERAL DESCRIBE',
      'LITERAL DESCRIBE_CONFIGS',
    ]);
    expect(operationsOn(acls, 'lq-2')).toEqual(['PREFIXED READ', 'PREFIXED DESCRIBE', 'PREFIXED DELETE']);
    expect(acls.filter((acl) => acl.operation === 'WRITE').map((acl) => acl.resourceName)).toEqual([
      'location.events.v1.lq-2.dlq',
      'location-group.events.v1.lq-2.dlq',
      'address-group.events.v1.lq-2.dlq',
      'location.events.v1.lq-2-changes.dlq',
      'location-group.events.v1.lq-2-changes.dlq',
      'address-group.events.v1.lq-2-changes.dlq',
    ]);
  });

  it('given no group, then the service name is the group, as the services default it, with its groups after it', () => {
    const acls = kafkaAclsFor('webhook-dispatcher', { topicPrefix: 'p', user: 'wd' });
    expect(acls.filter((acl) => acl.resourceType === 'GROUP').map((acl) => acl.resourceName)).toEqual([
      'p.webhook-dispatcher',
      'p.webhook-dispatcher',
      'p.webhook-dispatcher',
    ]);
    expect(acls.filter((acl) => acl.resourceName.endsWith('.dlq') && acl.operation === 'WRITE')).toEqual(
      [
        'p.location.events.v1.webhook-dispatcher.dlq',
        'p.location-group.events.v1.webhook-dispatcher.dlq',
        'p.address-group.events.v1.webhook-dispatcher.dlq',
        'p.export.events.v1.webhook-dispatcher.dlq',
        'p.client.events.v1.webhook-dispatcher-subscriptions.dlq',
      ].map((resourceName) => ({
        principal: 'User:wd',
        resourceType: 'TOPIC',
        patternType: 'LITERAL',
        resourceName,
        operation: 'WRITE',
      })),
    );
  });

  it('gives every topic exactly one writer, and every service may describe and create every declared topic', () => {
    const writers = ALL_TOPICS.map((topic) =>
      KAFKA_SERVICES.filter((service) => KAFKA_TOPIC_ACCESS[service].produces.includes(topic.name as never)),
    );
    // export.requests.v1 is declared but not written (exports are requested through export-worker's database).
    expect(writers.map((services) => services.length)).toEqual(
      ALL_TOPICS.map((topic) => (topic.name === TOPICS.exportRequests.name ? 0 : 1)),
    );
    for (const service of KAFKA_SERVICES) {
      const acls = kafkaAclsFor(service, { topicPrefix: '', user: service });
      for (const topic of ALL_TOPICS) expect(operationsOn(acls, topic.name)).toContain('LITERAL CREATE');
    }
  });
});

describe('aclEntryOf and kafkaAclsCommandOf', () => {
  const acl: KafkaAcl = {
    principal: 'User:lx-auth',
    resourceType: 'TOPIC',
    patternType: 'PREFIXED',
    resourceName: 'prod.client.events.v1.x',
    operation: 'DESCRIBE_CONFIGS',
  };

  it('maps to the CreateAcls entry: allow, from any host', () => {
    expect(aclEntryOf(acl)).toEqual({
      principal: 'User:lx-auth',
      host: '*',
      resourceType: 2,
      resourceName: 'prod.client.events.v1.x',
      resourcePatternType: 4,
      operation: 10,
      permissionType: 3,
    });
  });

  it('prints the kafka-acls.sh command that adds it', () => {
    expect(kafkaAclsCommandOf(acl)).toBe(
      'kafka-acls.sh --bootstrap-server "$BOOTSTRAP" --command-config admin.properties --add ' +
        "--allow-principal 'User:lx-auth' --operation DescribeConfigs --topic 'prod.client.events.v1.x' " +
        '--resource-pattern-type prefixed',
    );
    expect(kafkaAclsCommandOf({ ...acl, resourceType: 'GROUP', patternType: 'LITERAL', operation: 'READ' })).toContain(
      "--operation Read --group 'prod.client.events.v1.x' --resource-pattern-type literal",
    );
  });
});
