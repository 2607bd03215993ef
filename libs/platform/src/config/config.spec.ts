import { z } from 'zod';
import {
  encryptionKey,
  authConfig,
  authEnv,
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

describe('auth settings (authEnv)', () => {
  const authSchema = z.object(authEnv).transform(authConfig);
  const load = (env: NodeJS.ProcessEnv) => loadConfig('svc', authSchema, env);
  const problemsOfAuth = (env: NodeJS.ProcessEnv): readonly string[] => {
    try {
      load(env);
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
    throw new Error('expected a ConfigError');
  };

  it('given nothing, then the issuer is the lone auth service at its default address and no other is accepted', () => {
    expect(load({})).toEqual({
      jwksUrl: 'http://127.0.0.1:3001/.well-known/jwks.json',
      issuer: 'http://127.0.0.1:3001',
      acceptedIssuers: [],
      audience: 'location-exchange-api',
    });
  });

  it.each([
    ['http://127.0.0.1:18080', 'http://127.0.0.1:18080'],
    ['http://127.0.0.1:18080/', 'http://127.0.0.1:18080'],
    ['https://API.Example.com:443/', 'https://api.example.com'],
    ['https://api.example.com:8443', 'https://api.example.com:8443'],
  ])('given AUTH_ISSUER %s, then the issuer is the canonical origin %s', (value, issuer) => {
    expect(load({ AUTH_ISSUER: value }).issuer).toBe(issuer);
  });

  it.each([
    ['location-exchange', 'must be an absolute http or https URL'],
    ['ftp://api.example.com', 'must be an absolute http or https URL'],
    ['/relative', 'must be an absolute http or https URL'],
    ['https://api.example.com/lx', 'must not have a path'],
    ['https://api.example.com/?tenant=a', 'must not have a query or a fragment'],
    ['https://api.example.com?', 'must not have a query or a fragment'],
    ['https://api.example.com/#top', 'must not have a query or a fragment'],
    ['https://user:pw@api.example.com', 'must not contain credentials'],
  ])('given AUTH_ISSUER %s, then it is refused by name, without its value', (value, rule) => {
    const problems = problemsOfAuth({ AUTH_ISSUER: value });
    expect(problems).toEqual([expect.stringMatching(new RegExp(`^AUTH_ISSUER: ${rule}`))]);
    expect(problems.join()).not.toContain(value);
  });

  it('given the former issuer name, then the message says where it belongs now', () => {
    expect(problemsOfAuth({ AUTH_ISSUER: 'location-exchange' })[0]).toContain('belongs in AUTH_ACCEPTED_ISSUERS');
  });

  it('given accepted issuers, then names stay as written, URLs take the canonical form, repeats and the issuer go', () => {
    const config = load({
      AUTH_ISSUER: 'https://api.example.com',
      AUTH_ACCEPTED_ISSUERS:
        ' location-exchange , https://OLD.example.com/,https://api.example.com/, location-exchange',
    });
    expect(config.acceptedIssuers).toEqual(['location-exchange', 'https://old.example.com']);
  });

  it('given an accepted-issuers list with an empty entry, then it is refused', () => {
    expect(problemsOfAuth({ AUTH_ACCEPTED_ISSUERS: 'location-exchange,,x' })).toEqual([
      'AUTH_ACCEPTED_ISSUERS: must be a comma-separated list without empty entries',
    ]);
  });

  it('given a blank accepted-issuers list, then none is accepted', () => {
    expect(load({ AUTH_ACCEPTED_ISSUERS: ' ' }).acceptedIssuers).toEqual([]);
  });
});

describe('encryptionKey', () => {
  const key = Buffer.alloc(32, 7).toString('base64');

  it.each([
    ['32 bytes in padded base64', key, true],
    ['32 bytes without padding', key.replace(/=+$/, ''), true],
    ['31 bytes', Buffer.alloc(31, 7).toString('base64'), false],
    ['33 bytes', Buffer.alloc(33, 7).toString('base64'), false],
    ['base64url characters', key.replace(/^./, '-'), false],
    ['a space inside', `${key.slice(0, 10)} ${key.slice(10)}`, false],
    ['a leading newline', `\n${key}`, false],
    ['three padding characters', `${key.replace(/=+$/, '')}===`, false],
    ['empty', '', false],
  ])('given %s, when checked, then it is accepted: %s', (_, value, accepted) => {
    const result = encryptionKey.safeParse(value);
    expect(result.success).toBe(accepted);
    if (!result.success) expect(result.error.issues[0]?.message).toBe('must be 32 bytes, base64-encoded');
  });
});
