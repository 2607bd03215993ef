import { configProblems } from '@lx/testing';
import { loadWebhookDispatcherConfig } from './webhook-dispatcher.config';

const base = { DATABASE_URL: 'postgresql://localhost/lx', KAFKA_BROKERS: '127.0.0.1:9092' };

const problemsOf = (env: NodeJS.ProcessEnv) => configProblems(loadWebhookDispatcherConfig, env);

describe('webhook-dispatcher configuration', () => {
  it('given the required settings, when loaded, then its own port and schema are the defaults', () => {
    const config = loadWebhookDispatcherConfig(base);
    expect(config.http.port).toBe(3006);
    expect(config.database.schema).toBe('webhook_dispatcher');
    expect(config.kafka.brokers).toEqual(['127.0.0.1:9092']);
  });

  it('given nothing, when loaded, then every required setting is named', () => {
    expect(problemsOf({})).toEqual(expect.arrayContaining(['DATABASE_URL is required', 'KAFKA_BROKERS is required']));
  });

  it('given a port that is not a number, when loaded, then HTTP_PORT is named', () => {
    expect(problemsOf({ ...base, HTTP_PORT: 'eighty' })).toContain('HTTP_PORT: Expected number');
  });
});
