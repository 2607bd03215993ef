import { z } from 'zod';
import {
  ConfigError,
  databaseConfig,
  databaseEnv,
  httpConfig,
  httpEnv,
  kafkaConfig,
  kafkaEnv,
  loadConfig,
} from './config';

const schema = z.object({ ...httpEnv(3999), ...databaseEnv, ...kafkaEnv }).transform((env) => ({
  http: httpConfig(env),
  database: databaseConfig(env, 'svc'),
  kafka: kafkaConfig(env, 'svc'),
}));

function problemsOf(env: NodeJS.ProcessEnv): readonly string[] {
  try {
    loadConfig('svc', schema, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  const valid = { DATABASE_URL: 'postgresql://u:secret@db:5432/app', KAFKA_BROKERS: 'k1:9092, k2:9092' };

  it('given a complete environment, returns grouped settings with defaults applied, frozen', () => {
    const config = loadConfig('svc', schema, valid);
    expect(config).toEqual({
      http: { host: '0.0.0.0', port: 3999, bodyLimitBytes: 1_048_576, logLevel: 'info' },
      database: { url: valid.DATABASE_URL, schema: 'svc', poolSize: 10, migrateOnBoot: true },
      kafka: { brokers: ['k1:9092', 'k2:9092'], clientId: 'svc' },
    });
    expect(Object.isFrozen(config.database)).toBe(true);
  });

  it('given DATABASE_SCHEMA, uses it instead of the service default', () => {
    expect(loadConfig('svc', schema, { ...valid, DATABASE_SCHEMA: 'svc_it_1' }).database.schema).toBe('svc_it_1');
  });

  it('given missing settings, names every one of them', () => {
    expect(problemsOf({})).toEqual(['DATABASE_URL is required', 'KAFKA_BROKERS is required']);
  });

  it('given bad values, names each variable and the rule without echoing the value', () => {
    const problems = problemsOf({
      ...valid,
      HTTP_PORT: '70000',
      DATABASE_URL: 'mysql://u:topsecret@db/app',
      KAFKA_BROKERS: 'no-port-here',
      DATABASE_MIGRATE_ON_BOOT: 'yes',
    });
    expect(problems).toEqual([
      'HTTP_PORT: Number must be less than or equal to 65535',
      'DATABASE_URL: must be a postgres: or postgresql: URL',
      "DATABASE_MIGRATE_ON_BOOT: Invalid enum value. Expected 'true' | 'false'",
      'KAFKA_BROKERS: must be a comma-separated list of host:port',
    ]);
    expect(problems.join('\n')).not.toMatch(/topsecret|yes|70000/);
  });

  it('reports the service name in the error message', () => {
    expect(() => loadConfig('location-query', schema, {})).toThrow(/^location-query: invalid configuration/);
  });
});
