import { ALL_TOPICS, dlqTopicSpec, TOPICS } from '@lx/contracts';
import type { KafkaConfig } from '@lx/platform';
import { requireEnv, testKafka, testKafkaClient, uniqueSuffix, waitFor } from '@lx/testing';
import {
  aclEntryOf,
  createKafkaAcls,
  type IncomingMessage,
  KAFKA_SERVICES,
  type KafkaAcl,
  kafkaAclsFor,
  KafkaEventBus,
  type KafkaService,
} from '../../src';

/**
 * The local Kafka (deploy/local/kafka.sh) as the services meet it: TLS, SCRAM-SHA-512, a principal per service
 * (lx-<service>, passwords in the env file) and the ACLs of kafkaAclsFor, granted here under the test file's topic
 * prefix. Nobody gets in without a login; a service writes only the topics it owns.
 */
describe('Kafka authentication and ACLs (TLS, SCRAM-SHA-512, one principal per service)', () => {
  const kafka = testKafka();
  const suffix = uniqueSuffix();
  const groupOf = (service: KafkaService) => `it-${service}-${suffix}`;
  const acls: KafkaAcl[] = KAFKA_SERVICES.flatMap((service) =>
    kafkaAclsFor(service, { topicPrefix: kafka.topicPrefix, user: `lx-${service}`, groupId: groupOf(service) }),
  );
  const buses: KafkaEventBus[] = [];
  const admin = testKafkaClient(`it-acl-admin-${suffix}`).admin();

  /** A bus logged in as the service's own principal, on the test file's topics. */
  const busOf = (service: KafkaService, login: Partial<NonNullable<KafkaConfig['sasl']>> = {}) => {
    const password = requireEnv(`KAFKA_SASL_PASSWORD_${service.toUpperCase().replace(/-/g, '_')}`);
    const sasl = { mechanism: 'scram-sha-512' as const, username: `lx-${service}`, password, ...login };
    const bus = new KafkaEventBus({ ...kafka, clientId: `it-${service}-${suffix}`, sasl });
    buses.push(bus);
    return bus;
  };
  const aLocationEvent = () => ({ key: `loc-${uniqueSuffix()}`, value: JSON.stringify({ forged: suffix }) });

  beforeAll(async () => {
    expect(kafka.tls).toBeDefined();
    expect(kafka.sasl?.mechanism).toBe('scram-sha-512');
    await admin.connect();
    await createKafkaAcls(admin, acls);
  });

  afterAll(async () => {
    await Promise.all(buses.map((bus) => bus.close()));
    await admin.deleteAcls({ filters: acls.map(aclEntryOf) });
    await admin.disconnect();
  });

  it('given no login, then the broker refuses the connection, with TLS and without', async () => {
    const withoutSasl = testKafkaClient(`it-anonymous-${suffix}`, { brokers: kafka.brokers, tls: kafka.tls }).admin({
      retry: { retries: 0 },
    });
    await expect(withoutSasl.connect().then(() => withoutSasl.listTopics())).rejects.toThrow();
    await withoutSasl.disconnect();
    const plaintext = testKafkaClient(`it-plaintext-${suffix}`, { brokers: kafka.brokers, sasl: kafka.sasl }).admin({
      retry: { retries: 0 },
    });
    await expect(plaintext.connect().then(() => plaintext.listTopics())).rejects.toThrow();
    await plaintext.disconnect();
  });

  it('given a wrong password, then authentication fails', async () => {
    await expect(busOf('location-command', { password: 'not-the-password' }).ping()).rejects.toThrow(
      /SASL SCRAM SHA512 authentication failed/,
    );
  });

  it('given the owner of a topic, then it writes there, and its consumers read it with their own principals', async () => {
    const command = busOf('location-command');
    await command.ensureTopics(ALL_TOPICS);
    const received: IncomingMessage[] = [];
    const query = busOf('location-query');
    await query.ensureTopics(ALL_TOPICS);
    await query.subscribe({
      groupId: groupOf('location-query'),
      topics: [TOPICS.locationEvents.name],
      fromBeginning: true,
      handle: async (message) => {
        received.push(message);
      },
    });
    const event = aLocationEvent();
    await command.publish(TOPICS.locationEvents.name, [event]);
    await waitFor('location-query to read the event', async () => received.some((m) => m.key === event.key), 60_000);
    // Its dead-letter topic is its own to create and write.
    const deadLetters = dlqTopicSpec(TOPICS.locationEvents.name, groupOf('location-query'));
    await query.ensureTopics([deadLetters]);
    await expect(query.publish(deadLetters.name, [event])).resolves.toBeUndefined();
  });

  it.each<[KafkaService]>([['location-query'], ['webhook-dispatcher'], ['auth'], ['export-worker']])(
    'given %s, then it cannot write the location events every read model applies and the dispatcher signs',
    async (service) => {
      await expect(busOf(service).publish(TOPICS.locationEvents.name, [aLocationEvent()])).rejects.toThrow(/authoriz/i);
    },
  );

  it('given a service, then it cannot write another service’s topic, nor read a topic it does not consume', async () => {
    await expect(
      busOf('location-command').publish(TOPICS.clientEvents.name, [{ key: 'c', value: '{}' }]),
    ).rejects.toThrow(/authoriz/i);
    // statistics-projection reads location events only; client events carry every client's scopes.
    const consumer = testKafkaClient(`it-stats-reader-${suffix}`, {
      brokers: kafka.brokers,
      tls: kafka.tls,
      sasl: {
        mechanism: 'scram-sha-512',
        username: 'lx-statistics-projection',
        password: requireEnv('KAFKA_SASL_PASSWORD_STATISTICS_PROJECTION'),
      },
    }).consumer({ groupId: `${kafka.topicPrefix}.${groupOf('statistics-projection')}`, retry: { retries: 0 } });
    const crashed = new Promise<string>((resolve) =>
      consumer.on(consumer.events.CRASH, ({ payload }) => resolve(String(payload.error))),
    );
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: `${kafka.topicPrefix}.${TOPICS.clientEvents.name}`, fromBeginning: true });
      await consumer.run({ eachMessage: async () => undefined });
      await expect(crashed).resolves.toMatch(/authoriz/i);
    } finally {
      await consumer.disconnect();
    }
  });
});
