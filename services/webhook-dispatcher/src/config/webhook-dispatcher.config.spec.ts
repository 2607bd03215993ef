import { randomBytes } from 'node:crypto';
import { configProblems, kafkaOf } from '@lx/testing';
import { loadWebhookDispatcherConfig } from './webhook-dispatcher.config';

const base = {
  DATABASE_URL: 'postgresql://localhost/lx',
  KAFKA_BROKERS: '127.0.0.1:9092',
  WEBHOOK_SECRET_TRANSPORT_KEY: randomBytes(32).toString('base64'),
};

const problemsOf = (env: NodeJS.ProcessEnv) => configProblems(loadWebhookDispatcherConfig, env);

describe('webhook-dispatcher configuration', () => {
  it('given the required settings, when loaded, then its own port, schema and the documented delivery defaults apply', () => {
    const config = loadWebhookDispatcherConfig(base);
    expect(config.http.port).toBe(3006);
    expect(config.database.schema).toBe('webhook_dispatcher');
    expect(kafkaOf(config.eventBus).brokers).toEqual(['127.0.0.1:9092']);
    expect(config.intake).toEqual({ groupId: 'webhook-dispatcher', concurrency: 6 });
    expect(config.delivery).toEqual({
      schedule: { delaysMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000], jitter: 0.2 },
      connectTimeoutMs: 5_000,
      responseTimeoutMs: 15_000,
      rotationGraceMs: 86_400_000,
      checkpointIntervalMs: 1_000,
      rebalanceIntervalMs: 2_000,
      backoffAfter: 16,
      windowBytes: 32 * 1024 * 1024,
      logRetentionMs: 7 * 86_400_000,
      recordRetentionMs: 30 * 86_400_000,
      endpointConcurrency: 16,
      maxInFlight: 512,
      pollIntervalMs: 500,
      allowedAddressKinds: [],
    });
  });

  it('given nothing, when loaded, then every required setting is named', () => {
    expect(problemsOf({})).toEqual(
      expect.arrayContaining(['DATABASE_URL is required', 'WEBHOOK_SECRET_TRANSPORT_KEY is required']),
    );
    // The event bus's own settings are checked once the others hold (EVENT_BUS=kafka by default).
    const { KAFKA_BROKERS: _brokers, ...withoutBrokers } = base;
    expect(problemsOf(withoutBrokers)).toEqual(['KAFKA_BROKERS: is required with EVENT_BUS=kafka']);
  });

  it('given a schedule, timeouts and allowed address kinds, when loaded, then they are in milliseconds and kinds', () => {
    const config = loadWebhookDispatcherConfig({
      ...base,
      WEBHOOK_RETRY_SCHEDULE: '500ms, 1.5s,2m,1h,1d',
      WEBHOOK_CONNECT_TIMEOUT: '2s',
      WEBHOOK_RESPONSE_TIMEOUT: '30s',
      WEBHOOK_SECRET_ROTATION_GRACE: '7d',
      WEBHOOK_ALLOWED_ADDRESS_KINDS: 'loopback, private',
    });
    expect(config.delivery.schedule.delaysMs).toEqual([500, 1_500, 120_000, 3_600_000, 86_400_000]);
    expect(config.delivery.connectTimeoutMs).toBe(2_000);
    expect(config.delivery.responseTimeoutMs).toBe(30_000);
    expect(config.delivery.rotationGraceMs).toBe(7 * 86_400_000);
    expect(config.delivery.allowedAddressKinds).toEqual(['loopback', 'private']);
  });

  it.each([
    ['HTTP_PORT', 'eighty', 'HTTP_PORT: Expected number'],
    [
      'WEBHOOK_RETRY_SCHEDULE',
      '5s,soon',
      'WEBHOOK_RETRY_SCHEDULE: must be durations such as 5s,5m,2h (each at most 7d)',
    ],
    ['WEBHOOK_RETRY_SCHEDULE', '8d', 'WEBHOOK_RETRY_SCHEDULE: must be durations such as 5s,5m,2h (each at most 7d)'],
    ['WEBHOOK_RETRY_JITTER', '1', 'WEBHOOK_RETRY_JITTER: Number must be less than or equal to 0.9'],
    ['WEBHOOK_RESPONSE_TIMEOUT', '10 minutes', 'WEBHOOK_RESPONSE_TIMEOUT: must be a duration such as 500ms, 10s, 24h'],
    ['WEBHOOK_RESPONSE_TIMEOUT', '6m', 'WEBHOOK_RESPONSE_TIMEOUT: must be a duration such as 500ms, 10s, 24h'],
    [
      'WEBHOOK_ALLOWED_ADDRESS_KINDS',
      'loopback,intranet',
      'WEBHOOK_ALLOWED_ADDRESS_KINDS: must be a comma-separated list of loopback, private, link-local, unique-local, unspecified, reserved',
    ],
    ['WEBHOOK_SECRET_TRANSPORT_KEY', 'c2hvcnQ=', 'WEBHOOK_SECRET_TRANSPORT_KEY: must be 32 bytes, base64-encoded'],
    [
      'WEBHOOK_CONSUMER_GROUP',
      'a group',
      'WEBHOOK_CONSUMER_GROUP: must be a Kafka group id of letters, digits, ".", "_" and "-"',
    ],
    ['WEBHOOK_CONSUMER_GROUP', 'g'.repeat(101), 'WEBHOOK_CONSUMER_GROUP: must be at most 100 characters'],
    ['KAFKA_TOPIC_PREFIX', 'staging.', 'KAFKA_TOPIC_PREFIX: must not start or end with "."'],
  ])('given %s=%j, when loaded, then the setting is named', (name, value, problem) => {
    expect(problemsOf({ ...base, [name]: value })).toContain(problem);
  });
});
