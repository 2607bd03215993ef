/**
 * Grants each service's Kafka principal the ACLs it needs (kafkaAclsFor of libs/messaging) for one deployment, or
 * prints them as kafka-acls.sh commands. Run with the environment of the cluster's admin, by stack.sh and the cluster
 * test, or by an operator:
 *
 *   node -r ./libs/testing/register-swc.js deploy/local/kafka-acls.ts [--print]
 *
 * Env: KAFKA_BROKERS and the admin's login (KAFKA_TLS, KAFKA_TLS_CA_FILE, KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME,
 * KAFKA_SASL_PASSWORD; not needed with --print), KAFKA_TOPIC_PREFIX of the deployment, and per service (SERVICE as
 * LOCATION_QUERY): KAFKA_ACL_USER_<SERVICE> (default lx-<service>) and KAFKA_ACL_GROUP_<SERVICE> (its consumer group;
 * default the service's own default). Existing ACLs are kept; granting again changes nothing.
 */
import { Kafka, logLevel } from 'kafkajs';
import { z } from 'zod';
import { createKafkaAcls, KAFKA_SERVICES, type KafkaAcl, kafkaAclsCommandOf, kafkaAclsFor } from '@lx/messaging';
import { eventBusEnv, eventBusEnvRules, kafkaConfig, kafkaConnectionOf, loadConfig, runMain } from '@lx/platform';

const envName = (service: string) => service.toUpperCase().replace(/-/g, '_');

function aclsOfDeployment(env: NodeJS.ProcessEnv, topicPrefix: string): KafkaAcl[] {
  return KAFKA_SERVICES.flatMap((service) =>
    kafkaAclsFor(service, {
      topicPrefix,
      user: env[`KAFKA_ACL_USER_${envName(service)}`] || `lx-${service}`,
      groupId: env[`KAFKA_ACL_GROUP_${envName(service)}`] || undefined,
    }),
  );
}

async function main(): Promise<void> {
  const print = process.argv.includes('--print');
  if (print) {
    const { KAFKA_TOPIC_PREFIX } = loadConfig(
      'kafka-acls',
      z.object({ KAFKA_TOPIC_PREFIX: eventBusEnv.KAFKA_TOPIC_PREFIX }),
    );
    for (const acl of aclsOfDeployment(process.env, KAFKA_TOPIC_PREFIX))
      process.stdout.write(`${kafkaAclsCommandOf(acl)}\n`);
    return;
  }
  const config = loadConfig(
    'kafka-acls',
    z
      .object(eventBusEnv)
      .superRefine(eventBusEnvRules)
      .transform((env) => kafkaConfig(env, 'lx-kafka-acls')),
  );
  const acls = aclsOfDeployment(process.env, config.topicPrefix);
  const admin = new Kafka({ ...kafkaConnectionOf(config), logLevel: logLevel.WARN }).admin();
  await admin.connect();
  try {
    await createKafkaAcls(admin, acls);
  } finally {
    await admin.disconnect();
  }
  const principals = new Set(acls.map((acl) => acl.principal));
  process.stderr.write(
    `kafka-acls: ${acls.length} ACLs of ${principals.size} principals in place (topic prefix "${config.topicPrefix}")\n`,
  );
}

runMain(main);
