import {
  type Admin,
  type AclEntry,
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  ResourcePatternTypes,
} from 'kafkajs';
import { ALL_TOPICS, prefixedName, TOPICS, type TopicName } from '@lx/contracts';

/** The services that use Kafka, each with a principal of its own (docs/security.md, Kafka). */
export type KafkaService =
  'auth' | 'location-command' | 'location-query' | 'statistics-projection' | 'export-worker' | 'webhook-dispatcher';

/**
 * Which topics each service writes and which it reads: the whole of what its principal may do with events. A topic
 * has exactly one writer, so no other service (and no pod that stole another service's credentials) can put an event
 * on it that its consumers would apply, and the dispatcher would sign and send to the RSPs.
 */
export const KAFKA_TOPIC_ACCESS: Readonly<
  Record<KafkaService, { readonly produces: readonly TopicName[]; readonly consumes: readonly TopicName[] }>
> = {
  auth: { produces: [TOPICS.clientEvents.name], consumes: [] },
  'location-command': {
    produces: [TOPICS.locationEvents.name, TOPICS.locationGroupEvents.name, TOPICS.addressGroupEvents.name],
    consumes: [],
  },
  'location-query': {
    produces: [],
    consumes: [TOPICS.locationEvents.name, TOPICS.locationGroupEvents.name, TOPICS.addressGroupEvents.name],
  },
  'statistics-projection': { produces: [], consumes: [TOPICS.locationEvents.name] },
  'export-worker': { produces: [TOPICS.exportEvents.name], consumes: [] },
  'webhook-dispatcher': {
    produces: [TOPICS.webhookEvents.name],
    consumes: [TOPICS.locationEvents.name, TOPICS.exportEvents.name, TOPICS.clientEvents.name],
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
 * - for each topic it consumes, its dead-letter topics `<topic>.<group>…` (PREFIXED: the replay's groups are
 *   `<group>.rebuild-…`): CREATE, WRITE, DESCRIBE, DESCRIBE_CONFIGS;
 * - its consumer groups `<group>…` (PREFIXED: the dispatcher's `-subscriptions`, the replay's): READ, DESCRIBE and
 *   DELETE (a replay deletes its group when done).
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
  for (const topic of ALL_TOPICS)
    grant('TOPIC', 'LITERAL', onCluster(topic.name), ['DESCRIBE', 'DESCRIBE_CONFIGS', 'CREATE']);
  for (const topic of produces) grant('TOPIC', 'LITERAL', onCluster(topic), ['WRITE']);
  for (const topic of consumes) grant('TOPIC', 'LITERAL', onCluster(topic), ['READ']);
  if (consumes.length > 0) {
    const groupId = options.groupId ?? service;
    for (const topic of consumes) {
      grant('TOPIC', 'PREFIXED', onCluster(`${topic}.${groupId}`), ['CREATE', 'WRITE', 'DESCRIBE', 'DESCRIBE_CONFIGS']);
    }
    grant('GROUP', 'PREFIXED', onCluster(groupId), ['READ', 'DESCRIBE', 'DELETE']);
  }
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
