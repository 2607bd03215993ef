import {
  type Admin,
  type AclEntry,
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  ResourcePatternTypes,
} from 'kafkajs';
import { ALL_TOPICS, dlqTopic, prefixedName, TOPICS, type TopicName } from '@lx/contracts';

/** The services that use Kafka, each with a principal of its own (docs/security.md, Kafka). */
export type KafkaService =
  'auth' | 'location-command' | 'location-query' | 'statistics-projection' | 'export-worker' | 'webhook-dispatcher';

/** A topic a service consumes, and the consumer group that reads it: the service's group, with `groupSuffix` after it. */
export interface ConsumedTopic {
  readonly topic: TopicName;
  readonly groupSuffix: string;
}

const consumed = (groupSuffix: string, ...topics: TopicName[]): ConsumedTopic[] =>
  topics.map((topic) => ({ topic, groupSuffix }));

/**
 * Which topics each service writes and which it reads (with which of its groups): the whole of what its principal may
 * do with events. A topic has exactly one writer, so no other service (and no pod that stole another service's
 * credentials) can put an event on it that its consumers would apply, and the dispatcher would sign and send to the
 * RSPs.
 */
export const KAFKA_TOPIC_ACCESS: Readonly<
  Record<KafkaService, { readonly produces: readonly TopicName[]; readonly consumes: readonly ConsumedTopic[] }>
> = {
  auth: { produces: [TOPICS.clientEvents.name], consumes: [] },
  'location-command': {
    produces: [TOPICS.locationEvents.name, TOPICS.locationGroupEvents.name, TOPICS.addressGroupEvents.name],
    consumes: [],
  },
  // The read model as `<group>`, the change feed as `<group>-changes`.
  'location-query': {
    produces: [],
    consumes: [
      ...consumed('', TOPICS.locationEvents.name, TOPICS.locationGroupEvents.name, TOPICS.addressGroupEvents.name),
      ...consumed(
        '-changes',
        TOPICS.locationEvents.name,
        TOPICS.locationGroupEvents.name,
        TOPICS.addressGroupEvents.name,
      ),
    ],
  },
  'statistics-projection': { produces: [], consumes: consumed('', TOPICS.locationEvents.name) },
  'export-worker': { produces: [TOPICS.exportEvents.name], consumes: [] },
  // The intake reads location, group and export events; the subscriptions projection, as `<group>-subscriptions`,
  // clients.
  'webhook-dispatcher': {
    produces: [TOPICS.webhookEvents.name],
    consumes: [
      ...consumed(
        '',
        TOPICS.locationEvents.name,
        TOPICS.locationGroupEvents.name,
        TOPICS.addressGroupEvents.name,
        TOPICS.exportEvents.name,
      ),
      ...consumed('-subscriptions', TOPICS.clientEvents.name),
    ],
  },
};

export const KAFKA_SERVICES = Object.keys(KAFKA_TOPIC_ACCESS) as readonly KafkaService[];

export type KafkaAclOperation = 'READ' | 'WRITE' | 'CREATE' | 'DESCRIBE' | 'DESCRIBE_CONFIGS' | 'DELETE';

/** One ALLOW ACL of a principal, on a topic or group named exactly (LITERAL) or by the start of its name (PREFIXED). */
export interface KafkaAcl {
  readonly principal: string;
  readonly resourceType: 'TOPIC' | 'GROUP';
  readonly patternType: 'LITERAL' | 'PREFIXED';
  readonly resourceName: string;
  readonly operation: KafkaAclOperation;
}

export interface KafkaAclOptions {
  /** KAFKA_TOPIC_PREFIX of the deployment. */
  readonly topicPrefix: string;
  /** The SASL user of the service; its principal is `User:<user>`. */
  readonly user: string;
  /** The consumer group the service is configured with (its PROJECTION_GROUP_ID / WEBHOOK_CONSUMER_GROUP). */
  readonly groupId?: string;
}

/**
 * The ACLs a service's principal needs, and nothing more:
 * - every declared topic: DESCRIBE, DESCRIBE_CONFIGS and CREATE, since each service creates and checks all declared
 *   topics at start (MessagingModule), whichever starts first; an empty declared topic forges nothing;
 * - WRITE on the topics it produces, READ on those it consumes;
 * - the dead-letter topic of each topic it consumes, `<topic>.<group>.dlq` (a replay's consumer writes to the live
 *   group's): CREATE, WRITE, DESCRIBE, DESCRIBE_CONFIGS. This WRITE is also what lets a consumer-only service's
 *   idempotent producer start (InitProducerId needs WRITE on some topic, KIP-679);
 * - its consumer groups `<group>…` (PREFIXED: the dispatcher's `-subscriptions`, a replay's `<group>.rebuild-…`): READ,
 *   DESCRIBE and DELETE (a replay deletes its group when done).
 * Names carry the deployment's topic prefix, so deployments sharing a cluster are apart here too.
 */
export function kafkaAclsFor(service: KafkaService, options: KafkaAclOptions): KafkaAcl[] {
  const { produces, consumes } = KAFKA_TOPIC_ACCESS[service];
  const principal = `User:${options.user}`;
  const onCluster = (name: string) => prefixedName(options.topicPrefix, name);
  const acls: KafkaAcl[] = [];
  const grant = (
    resourceType: KafkaAcl['resourceType'],
    patternType: KafkaAcl['patternType'],
    resourceName: string,
    operations: readonly KafkaAclOperation[],
  ) => {
    for (const operation of operations) acls.push({ principal, resourceType, patternType, resourceName, operation });
  };
  for (const topic of ALL_TOPICS) {
    grant('TOPIC', 'LITERAL', onCluster(topic.name), ['DESCRIBE', 'DESCRIBE_CONFIGS', 'CREATE']);
  }
  for (const topic of produces) grant('TOPIC', 'LITERAL', onCluster(topic), ['WRITE']);
  const groupId = options.groupId ?? service;
  // A topic read by several of the service's groups is granted READ once.
  for (const topic of new Set(consumes.map(({ topic }) => topic)))
    grant('TOPIC', 'LITERAL', onCluster(topic), ['READ']);
  for (const { topic, groupSuffix } of consumes) {
    grant('TOPIC', 'LITERAL', onCluster(dlqTopic(topic, `${groupId}${groupSuffix}`)), [
      'CREATE',
      'WRITE',
      'DESCRIBE',
      'DESCRIBE_CONFIGS',
    ]);
  }
  if (consumes.length > 0) grant('GROUP', 'PREFIXED', onCluster(groupId), ['READ', 'DESCRIBE', 'DELETE']);
  return acls;
}

/** The ACL as Kafka's CreateAcls request takes it (kafkajs). */
export function aclEntryOf(acl: KafkaAcl): AclEntry {
  return {
    principal: acl.principal,
    host: '*',
    resourceType: AclResourceTypes[acl.resourceType],
    resourceName: acl.resourceName,
    resourcePatternType: ResourcePatternTypes[acl.patternType],
    operation: AclOperationTypes[acl.operation],
    permissionType: AclPermissionTypes.ALLOW,
  };
}

/** Creates the ACLs with an admin client of a principal allowed to (ALTER on the cluster); existing ones stay as they are. */
export async function createKafkaAcls(admin: Admin, acls: readonly KafkaAcl[]): Promise<void> {
  if (acls.length > 0) await admin.createAcls({ acl: acls.map(aclEntryOf) });
}

/** The ACL as the `kafka-acls.sh` command of Kafka's own tools that adds it, for operators who apply ACLs that way. */
export function kafkaAclsCommandOf(acl: KafkaAcl): string {
  const operation = acl.operation
    .split('_')
    .map((word) => word[0] + word.slice(1).toLowerCase())
    .join('');
  const resource = acl.resourceType === 'TOPIC' ? '--topic' : '--group';
  return [
    'kafka-acls.sh --bootstrap-server "$BOOTSTRAP" --command-config admin.properties --add',
    `--allow-principal '${acl.principal}'`,
    `--operation ${operation}`,
    `${resource} '${acl.resourceName}'`,
    `--resource-pattern-type ${acl.patternType.toLowerCase()}`,
  ].join(' ');
}
