import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import {
  encryptionKey,
  authConfig,
  consumerGroupEnv,
  authEnv,
  ConfigError,
  databaseConfig,
  databaseEnv,
  databaseEnvRules,
  httpConfig,
  httpEnv,
  eventBusConfig,
  eventBusEnv,
  eventBusEnvRules,
  loadConfig,
  httpUrlEnv,
  outboxConfig,
  outboxEnv,
  rateLimitConfig,
  rateLimitEnv,
  readPoolConfig,
  readPoolEnv,
  readPoolEnvRules,
  serviceClientConfig,
  serviceClientEnv,
  storageConfig,
  storageEnv,
  storageEnvRules,
} from './config';
import { DEFAULT_RATE_LIMITS } from '../rate-limit/rate-limit';

const schema = z
  .object({ ...httpEnv(3999), ...databaseEnv, ...eventBusEnv })
  .superRefine(eventBusEnvRules)
  .superRefine(databaseEnvRules)
  .transform((env) => ({
    http: httpConfig(env),
    database: databaseConfig(env, 'svc'),
    eventBus: eventBusConfig(env, 'svc'),
  }));

/** The Kafka settings of `schema` loaded from `env` (EVENT_BUS=kafka). */
function kafkaSettings(env: NodeJS.ProcessEnv) {
  const { eventBus } = loadConfig('svc', schema, env);
  if (eventBus.driver !== 'kafka') throw new Error(`EVENT_BUS=${eventBus.driver}`);
  return eventBus.kafka;
}

function problemsOf(env: NodeJS.ProcessEnv, of: z.ZodTypeAny = schema): readonly string[] {
  try {
    loadConfig('svc', of, env);
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
      http: {
        host: '0.0.0.0',
        port: 3999,
        bodyLimitBytes: 1_048_576,
        requestTimeoutMs: 300_000,
        trustedProxies: ['loopback'],
        readinessGraceMs: 20_000,
        logLevel: 'info',
        tracing: { exporter: 'none', protocol: 'http/protobuf' },
      },
      database: { url: valid.DATABASE_URL, schema: 'svc', poolSize: 10, migrateOnBoot: true },
      eventBus: {
        driver: 'kafka',
        kafka: {
          brokers: ['k1:9092', 'k2:9092'],
          clientId: 'svc',
          topicPrefix: '',
          replicationFactor: 3,
          minInsyncReplicas: 2,
        },
      },
    });
    expect(Object.isFrozen(config.database)).toBe(true);
  });

  it('given DATABASE_SCHEMA, uses it instead of the service default', () => {
    expect(loadConfig('svc', schema, { ...valid, DATABASE_SCHEMA: 'svc_it_1' }).database.schema).toBe('svc_it_1');
  });

  it('given missing settings, names every one of them', () => {
    expect(problemsOf({})).toEqual(['DATABASE_URL is required']);
    expect(problemsOf({ DATABASE_URL: valid.DATABASE_URL })).toEqual([
      'KAFKA_BROKERS: is required with EVENT_BUS=kafka',
    ]);
  });

  it('given EVENT_BUS=postgres, then no Kafka setting is required and the event bus is the PostgreSQL event log', () => {
    expect(loadConfig('svc', schema, { DATABASE_URL: valid.DATABASE_URL, EVENT_BUS: 'postgres' }).eventBus).toEqual({
      driver: 'postgres',
    });
    expect(loadConfig('svc', schema, { ...valid, EVENT_BUS: 'postgres' }).eventBus).toEqual({ driver: 'postgres' });
  });

  it('given an EVENT_BUS that is neither kafka nor postgres, then it is named', () => {
    expect(problemsOf({ ...valid, EVENT_BUS: 'redis' })).toEqual([
      "EVENT_BUS: Invalid enum value. Expected 'kafka' | 'postgres'",
    ]);
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

  it('given several problems, then the error message lists them one per line', () => {
    expect(() => loadConfig('location-query', schema, { HTTP_PORT: '70000' })).toThrow(
      new Error(
        'location-query: invalid configuration\n  - HTTP_PORT: Number must be less than or equal to 65535\n  - DATABASE_URL is required',
      ),
    );
  });

  it('given a number that is not a number, then it is named as invalid, not as missing, without its value', () => {
    expect(problemsOf({ ...valid, HTTP_PORT: 'eighty' })).toEqual(['HTTP_PORT: Expected number']);
  });

  it('given the text "undefined" (a templating slip), then it is reported as a bad value, not as a missing one', () => {
    expect(problemsOf({ ...valid, LOG_LEVEL: 'undefined' })).toEqual([
      "LOG_LEVEL: Invalid enum value. Expected 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'",
    ]);
  });

  it('given a bad value with a line break (a pasted secret), then no line of it is echoed', () => {
    expect(problemsOf({ ...valid, LOG_LEVEL: 'hunter2\nsecret' })).toEqual([
      "LOG_LEVEL: Invalid enum value. Expected 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'",
    ]);
  });

  it('given a rule across variables that names none of them, then it is reported for the environment', () => {
    const paired = z
      .object({ A: z.string().optional(), B: z.string().optional() })
      .refine((env) => (env.A === undefined) === (env.B === undefined), 'A and B must be set together');
    expect(problemsOf({ A: 'x' }, paired)).toEqual(['(environment): A and B must be set together']);
  });

  it.each(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])(
    'given LOG_LEVEL %s (a pino level), then it is the log level',
    (level) => {
      expect(loadConfig('svc', schema, { ...valid, LOG_LEVEL: level }).http.logLevel).toBe(level);
    },
  );

  it.each([
    ['false', false],
    ['true', true],
  ])('given DATABASE_MIGRATE_ON_BOOT %s, then migrations run on boot: %s', (value, migrate) => {
    expect(loadConfig('svc', schema, { ...valid, DATABASE_MIGRATE_ON_BOOT: value }).database.migrateOnBoot).toBe(
      migrate,
    );
  });

  it.each(['svc_it_1', '_private', 's'.repeat(63)])('given DATABASE_SCHEMA %p, then it is accepted', (name) => {
    expect(loadConfig('svc', schema, { ...valid, DATABASE_SCHEMA: name }).database.schema).toBe(name);
  });

  it.each(['Svc', 'svc-it', '1svc', 'svc it', 's'.repeat(64)])(
    'given DATABASE_SCHEMA %p, then it is refused as not a lower-case SQL identifier',
    (name) => {
      expect(problemsOf({ ...valid, DATABASE_SCHEMA: name })).toEqual([
        'DATABASE_SCHEMA: must be a lower-case SQL identifier',
      ]);
    },
  );

  it.each([
    ['a scheme before the host', 'kafka://k1:9092'],
    ['a second broker without a port', 'k1:9092,k2'],
    ['a semicolon as separator', 'k1:9092;k2:9092'],
    ['a path after the port', 'k1:9092/'],
  ])('given KAFKA_BROKERS with %s, then it is refused', (_, brokers) => {
    expect(problemsOf({ ...valid, KAFKA_BROKERS: brokers })).toEqual([
      'KAFKA_BROKERS: must be a comma-separated list of host:port',
    ]);
  });
});

describe('TLS to PostgreSQL and the administrator login (DATABASE_SSL_MODE, DATABASE_SSL_CA_FILE, DATABASE_ADMIN_URL)', () => {
  const valid = { DATABASE_URL: 'postgresql://u:secret@db:5432/app', KAFKA_BROKERS: 'k1:9092' };
  const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
  let dir: string;
  let caFile: string;
  let notPem: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lx-config-spec-'));
    caFile = join(dir, 'ca.crt');
    notPem = join(dir, 'ca.txt');
    writeFileSync(caFile, PEM);
    writeFileSync(notPem, 'not a certificate');
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('given no DATABASE_SSL_MODE, then the configuration has no TLS setting: the URL decides, as before', () => {
    expect(loadConfig('svc', schema, valid).database).not.toHaveProperty('ssl');
  });

  it.each(['disable', 'require', 'verify-full'] as const)('given DATABASE_SSL_MODE %s, then it is the mode', (mode) => {
    expect(loadConfig('svc', schema, { ...valid, DATABASE_SSL_MODE: mode }).database.ssl).toStrictEqual({ mode });
  });

  it('given verify-full and a CA file, then the configuration holds the CA itself, read at start', () => {
    const config = loadConfig('svc', schema, {
      ...valid,
      DATABASE_SSL_MODE: 'verify-full',
      DATABASE_SSL_CA_FILE: caFile,
    });
    expect(config.database.ssl).toEqual({ mode: 'verify-full', ca: PEM });
  });

  it.each(['prefer', 'verify-ca', 'true', ''])('given DATABASE_SSL_MODE %p, then it is refused by name', (mode) => {
    expect(problemsOf({ ...valid, DATABASE_SSL_MODE: mode })).toEqual([
      "DATABASE_SSL_MODE: Invalid enum value. Expected 'disable' | 'require' | 'verify-full'",
    ]);
  });

  it.each([undefined, 'disable', 'require'])(
    'given a CA file with DATABASE_SSL_MODE %p, then it is refused',
    (mode) => {
      expect(problemsOf({ ...valid, DATABASE_SSL_MODE: mode, DATABASE_SSL_CA_FILE: caFile })).toEqual([
        'DATABASE_SSL_CA_FILE: is only used with DATABASE_SSL_MODE=verify-full',
      ]);
    },
  );

  it('given a CA file that cannot be read, or holds no certificate, then it is refused by name', () => {
    expect(
      problemsOf({ ...valid, DATABASE_SSL_MODE: 'verify-full', DATABASE_SSL_CA_FILE: join(dir, 'missing.crt') }),
    ).toEqual(['DATABASE_SSL_CA_FILE: cannot be read']);
    expect(problemsOf({ ...valid, DATABASE_SSL_MODE: 'verify-full', DATABASE_SSL_CA_FILE: notPem })).toEqual([
      'DATABASE_SSL_CA_FILE: holds no PEM certificate',
    ]);
  });

  it("given DATABASE_SSL_MODE and an invalid DATABASE_URL, then only the URL's own problem is reported", () => {
    expect(problemsOf({ ...valid, DATABASE_URL: 'postgresql://db:port/app', DATABASE_SSL_MODE: 'require' })).toEqual([
      'DATABASE_URL: Invalid url',
    ]);
  });

  it('given DATABASE_SSL_MODE and TLS parameters in the URLs, then each URL is refused, naming the parameters', () => {
    const problems = problemsOf({
      ...valid,
      DATABASE_URL: 'postgresql://u:topsecret@db:5432/app?sslmode=disable&sslrootcert=/ca.crt',
      DATABASE_ADMIN_URL: 'postgresql://admin:topsecret@db:5432/app?ssl=true',
      DATABASE_SSL_MODE: 'verify-full',
    });
    expect(problems).toEqual([
      'DATABASE_URL: must not set sslmode, sslrootcert when DATABASE_SSL_MODE is set (it would override it)',
      'DATABASE_ADMIN_URL: must not set ssl when DATABASE_SSL_MODE is set (it would override it)',
    ]);
    expect(problems.join('\n')).not.toMatch(/topsecret/);
  });

  it('given TLS parameters in the URL without DATABASE_SSL_MODE, then they are kept (the URL decides, as before)', () => {
    const url = 'postgresql://u:secret@db:5432/app?sslmode=require';
    expect(loadConfig('svc', schema, { ...valid, DATABASE_URL: url }).database).toMatchObject({ url });
  });

  it('given DATABASE_ADMIN_URL, then it is the administrator login; a bad one is refused by name', () => {
    const adminUrl = 'postgresql://postgres:secret@db:5432/app';
    expect(loadConfig('svc', schema, { ...valid, DATABASE_ADMIN_URL: adminUrl }).database.adminUrl).toBe(adminUrl);
    expect(loadConfig('svc', schema, valid).database).not.toHaveProperty('adminUrl');
    expect(problemsOf({ ...valid, DATABASE_ADMIN_URL: 'http://db' })).toEqual([
      'DATABASE_ADMIN_URL: must be a postgres: or postgresql: URL',
    ]);
  });
});

describe('tracing (OTEL_*)', () => {
  const valid = { DATABASE_URL: 'postgresql://u:secret@db:5432/app', KAFKA_BROKERS: 'k1:9092' };
  const tracing = (env: Record<string, string>) => loadConfig('svc', schema, { ...valid, ...env }).http.tracing!;

  it('given no OTEL_ variable, then tracing is off', () => {
    expect(tracing({})).toStrictEqual({ exporter: 'none', protocol: 'http/protobuf' });
  });

  it('given an OTLP endpoint without OTEL_TRACES_EXPORTER, then spans go to OTLP over HTTP, protobuf by default', () => {
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      exporter: 'otlp',
      protocol: 'http/protobuf',
    });
    expect(tracing({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }).exporter).toBe('otlp');
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example' }).exporter).toBe('otlp');
    expect(tracing({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector.example/v1/traces' }).exporter).toBe(
      'otlp',
    );
  });

  it('given OTEL_TRACES_EXPORTER, then it decides, and the traces protocol wins over the general one', () => {
    expect(tracing({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).exporter).toBe(
      'none',
    );
    expect(tracing({ OTEL_TRACES_EXPORTER: 'console' }).exporter).toBe('console');
    expect(
      tracing({
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'lx-edge',
      }),
    ).toEqual({ exporter: 'otlp', protocol: 'http/json', serviceName: 'lx-edge' });
  });

  it('given OTEL_SDK_DISABLED=true, then tracing is off whatever else is set', () => {
    expect(tracing({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' }).exporter).toBe('none');
  });

  it('given values the services cannot honour, then each is refused by name', () => {
    expect(() =>
      loadConfig('svc', schema, {
        ...valid,
        OTEL_TRACES_EXPORTER: 'jaeger',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
        OTEL_TRACES_SAMPLER: 'sometimes',
        OTEL_TRACES_SAMPLER_ARG: '2',
      }),
    ).toThrow(
      expect.objectContaining({
        problems: [
          expect.stringMatching(/^OTEL_TRACES_EXPORTER: /),
          expect.stringMatching(/^OTEL_EXPORTER_OTLP_ENDPOINT: /),
          'OTEL_EXPORTER_OTLP_PROTOCOL: grpc is not supported: use http/protobuf (the default) or http/json',
          expect.stringMatching(/^OTEL_TRACES_SAMPLER: /),
          expect.stringMatching(/^OTEL_TRACES_SAMPLER_ARG: /),
        ],
      }),
    );
  });
});

describe('outbox retention (OUTBOX_RETENTION_SECONDS)', () => {
  const outboxSchema = z.object(outboxEnv).transform(outboxConfig);

  it('given nothing, then published rows are kept 7 days', () => {
    expect(loadConfig('svc', outboxSchema, {})).toEqual({ retentionSeconds: 604_800 });
  });

  it.each(['60', '3600', String(3650 * 86_400)])('given %p, then it is the retention', (value) => {
    expect(loadConfig('svc', outboxSchema, { OUTBOX_RETENTION_SECONDS: value })).toEqual({
      retentionSeconds: Number(value),
    });
  });

  it.each(['59', String(3650 * 86_400 + 1), '90.5', 'a week'])('given %p, then the variable is named', (value) => {
    expect(problemsOf({ OUTBOX_RETENTION_SECONDS: value }, outboxSchema)).toEqual([
      expect.stringMatching(/^OUTBOX_RETENTION_SECONDS: /),
    ]);
  });
});

describe('rate limits (RATE_LIMITS, RATE_LIMIT_SYNC_MS)', () => {
  const rateLimitSchema = z.object(rateLimitEnv).transform(rateLimitConfig);

  it('given nothing, then every kind has its default, synced every 500 ms', () => {
    expect(loadConfig('svc', rateLimitSchema, {})).toEqual({ limits: DEFAULT_RATE_LIMITS, syncMs: 500 });
  });

  it('given limits and an interval, then the kinds named take them over the defaults', () => {
    expect(
      loadConfig('svc', rateLimitSchema, { RATE_LIMITS: 'RSP=5/60,ADMIN=off', RATE_LIMIT_SYNC_MS: '100' }),
    ).toEqual({
      limits: { ...DEFAULT_RATE_LIMITS, RSP: { quota: 5, windowSeconds: 60 }, ADMIN: null },
      syncMs: 100,
    });
    expect(loadConfig('svc', rateLimitSchema, { RATE_LIMIT_SYNC_MS: '60000' }).syncMs).toBe(60_000);
  });

  it('given wrong entries, then RATE_LIMITS is named with each entry', () => {
    expect(problemsOf({ RATE_LIMITS: 'RSP=5' }, rateLimitSchema)).toEqual([
      'RATE_LIMITS: "RSP=5" is not KIND=quota/seconds or KIND=off with KIND one of RSP, OPERATOR, ADMIN, SERVICE',
    ]);
    expect(problemsOf({ RATE_LIMITS: 'RSP=5,X=off' }, rateLimitSchema)).toEqual([
      'RATE_LIMITS: "RSP=5" is not KIND=quota/seconds or KIND=off with KIND one of RSP, OPERATOR, ADMIN, SERVICE; ' +
        '"X=off" is not KIND=quota/seconds or KIND=off with KIND one of RSP, OPERATOR, ADMIN, SERVICE',
    ]);
  });

  it.each(['99', '60001', '150.5', 'often'])('given RATE_LIMIT_SYNC_MS %p, then the variable is named', (value) => {
    expect(problemsOf({ RATE_LIMIT_SYNC_MS: value }, rateLimitSchema)).toEqual([
      expect.stringMatching(/^RATE_LIMIT_SYNC_MS: /),
    ]);
  });
});

describe('RSP read pool (READ_POOL_SIZE, READ_STATEMENT_TIMEOUT_MS, READ_SCAN_CONCURRENCY, READ_QUEUE_TIMEOUT_MS)', () => {
  const readPoolSchema = z.object(readPoolEnv).superRefine(readPoolEnvRules).transform(readPoolConfig);

  it('given nothing, then 6 connections, 5 s statements, 2 scans at once, 5 s of waiting', () => {
    expect(loadConfig('svc', readPoolSchema, {})).toStrictEqual({
      poolSize: 6,
      statementTimeoutMs: 5_000,
      scanConcurrency: 2,
      queueTimeoutMs: 5_000,
    });
  });

  it('given each setting, then each is taken', () => {
    expect(
      loadConfig('svc', readPoolSchema, {
        READ_POOL_SIZE: '20',
        READ_STATEMENT_TIMEOUT_MS: '250',
        READ_SCAN_CONCURRENCY: '1',
        READ_QUEUE_TIMEOUT_MS: '10',
      }),
    ).toStrictEqual({ poolSize: 20, statementTimeoutMs: 250, scanConcurrency: 1, queueTimeoutMs: 10 });
  });

  it.each([
    ['READ_POOL_SIZE', '1'],
    ['READ_POOL_SIZE', '101'],
    ['READ_POOL_SIZE', '2.5'],
    ['READ_STATEMENT_TIMEOUT_MS', '9'],
    ['READ_STATEMENT_TIMEOUT_MS', '600001'],
    ['READ_SCAN_CONCURRENCY', '0'],
    ['READ_QUEUE_TIMEOUT_MS', 'soon'],
  ])('given %s=%p, then the variable is named', (name, value) => {
    expect(problemsOf({ [name]: value }, readPoolSchema)).toEqual([expect.stringMatching(new RegExp(`^${name}: `))]);
  });

  it.each([
    ['1', '2'],
    ['2.5', '3'],
  ])('given a refused READ_POOL_SIZE=%p, then it alone is named, not READ_SCAN_CONCURRENCY=%p', (size, scans) => {
    const problems = problemsOf({ READ_POOL_SIZE: size, READ_SCAN_CONCURRENCY: scans }, readPoolSchema);
    expect(problems.length).toBeGreaterThan(0);
    for (const problem of problems) expect(problem).toMatch(/^READ_POOL_SIZE: /);
  });

  it.each([
    ['2', '2'],
    ['6', '7'],
  ])(
    'given READ_POOL_SIZE=%p and READ_SCAN_CONCURRENCY=%p, then the slots must leave reads by id a connection',
    (size, scans) => {
      expect(problemsOf({ READ_POOL_SIZE: size, READ_SCAN_CONCURRENCY: scans }, readPoolSchema)).toEqual([
        'READ_SCAN_CONCURRENCY: must be less than READ_POOL_SIZE (list reads must leave reads by id a connection)',
      ]);
      const fewer = String(Number(size) - 1);
      expect(loadConfig('svc', readPoolSchema, { READ_POOL_SIZE: size, READ_SCAN_CONCURRENCY: fewer })).toMatchObject({
        scanConcurrency: Number(fewer),
      });
    },
  );
});

describe('request deadline (HTTP_REQUEST_TIMEOUT_MS)', () => {
  const valid = { DATABASE_URL: 'postgresql://u:secret@db:5432/app', KAFKA_BROKERS: 'k1:9092' };
  const deadline = (env: NodeJS.ProcessEnv, of: z.ZodTypeAny = schema) =>
    (loadConfig('svc', of, { ...valid, ...env }) as { http: { requestTimeoutMs: number } }).http.requestTimeoutMs;

  it("given nothing, then Node's own default of 5 minutes, or the service's own default", () => {
    expect(deadline({})).toBe(300_000);
    const longer = z.object(httpEnv(3999, 3_600_000)).transform((env) => ({ http: httpConfig(env) }));
    expect(deadline({}, longer)).toBe(3_600_000);
  });

  it.each(['1000', '60000', '86400000'])('given %p, then it is the deadline', (value) => {
    expect(deadline({ HTTP_REQUEST_TIMEOUT_MS: value })).toBe(Number(value));
  });

  it.each(['999', '86400001', '0', 'soon'])('given %p, then the variable is named', (value) => {
    expect(problemsOf({ ...valid, HTTP_REQUEST_TIMEOUT_MS: value })).toEqual([
      expect.stringMatching(/^HTTP_REQUEST_TIMEOUT_MS: /),
    ]);
  });
});

describe('readiness grace (READINESS_GRACE_MS)', () => {
  const valid = { DATABASE_URL: 'postgresql://u:secret@db:5432/app', KAFKA_BROKERS: 'k1:9092' };
  const grace = (env: NodeJS.ProcessEnv) => loadConfig('svc', schema, { ...valid, ...env }).http.readinessGraceMs;

  it('given nothing, then 20 s', () => {
    expect(grace({})).toBe(20_000);
  });

  it.each(['0', '1000', '600000'])('given %p, then it is the grace', (value) => {
    expect(grace({ READINESS_GRACE_MS: value })).toBe(Number(value));
  });

  it.each(['-1', '600001', '1.5', 'soon'])('given %p, then the variable is named', (value) => {
    expect(problemsOf({ ...valid, READINESS_GRACE_MS: value })).toEqual([
      expect.stringMatching(/^READINESS_GRACE_MS: /),
    ]);
  });
});

describe('trusted proxies (HTTP_TRUSTED_PROXIES)', () => {
  const valid = { DATABASE_URL: 'postgresql://u:secret@db:5432/app', KAFKA_BROKERS: 'k1:9092' };
  const proxies = (env: NodeJS.ProcessEnv) => loadConfig('svc', schema, { ...valid, ...env }).http.trustedProxies;

  it('given nothing, then loopback; given an empty value, then none', () => {
    expect(proxies({})).toEqual(['loopback']);
    expect(proxies({ HTTP_TRUSTED_PROXIES: '' })).toEqual([]);
  });

  it('given names, addresses and ranges of both families, then each of them', () => {
    expect(
      proxies({
        HTTP_TRUSTED_PROXIES: 'loopback, uniquelocal,linklocal,10.0.0.0/8,192.0.2.1,fd00::/8,2001:db8::1/128',
      }),
    ).toEqual(['loopback', 'uniquelocal', 'linklocal', '10.0.0.0/8', '192.0.2.1', 'fd00::/8', '2001:db8::1/128']);
  });

  it.each(['everyone', '10.0.0.0/33', '2001:db8::/129', '10.0.0.0/8/8', '10.0.0.0/x', '10.0.0.0/1e1', '300.1.1.1'])(
    'given %p, then the variable is named with the entry',
    (entry) => {
      expect(problemsOf({ ...valid, HTTP_TRUSTED_PROXIES: `loopback,${entry}` })).toEqual([
        expect.stringMatching(new RegExp(`^HTTP_TRUSTED_PROXIES: .*not: ${entry.replace(/[./]/g, '\\$&')}$`)),
      ]);
    },
  );

  it('names every entry it refuses, and what it takes instead', () => {
    expect(problemsOf({ ...valid, HTTP_TRUSTED_PROXIES: 'loopback,proxy-1,10.0.0.0/8,proxy-2' })).toEqual([
      'HTTP_TRUSTED_PROXIES: must list addresses, CIDR ranges or loopback, linklocal, uniquelocal; not: proxy-1, proxy-2',
    ]);
  });
});

describe('topic prefix (KAFKA_TOPIC_PREFIX)', () => {
  const valid = { DATABASE_URL: 'postgresql://u:secret@db:5432/app', KAFKA_BROKERS: 'k1:9092' };

  it.each(['staging', 'eu-1.prod', 'team_a'])('given KAFKA_TOPIC_PREFIX %p, then it is the topic prefix', (prefix) => {
    expect(kafkaSettings({ ...valid, KAFKA_TOPIC_PREFIX: prefix }).topicPrefix).toBe(prefix);
  });

  it('given KAFKA_TOPIC_PREFIX empty, then there is no prefix', () => {
    expect(kafkaSettings({ ...valid, KAFKA_TOPIC_PREFIX: '' }).topicPrefix).toBe('');
  });

  it.each([
    ['a character Kafka refuses', 'team/a', 'must be letters, digits, ".", "_" and "-" only'],
    ['the joining dot typed in', 'staging.', 'must not start or end with "."'],
    ['65 characters', 'p'.repeat(65), 'must be at most 64 characters'],
  ])('given KAFKA_TOPIC_PREFIX with %s, then the variable is named with the rule', (_, prefix, rule) => {
    expect(problemsOf({ ...valid, KAFKA_TOPIC_PREFIX: prefix })).toEqual([`KAFKA_TOPIC_PREFIX: ${rule}`]);
  });
});

describe('topic durability (KAFKA_REPLICATION_FACTOR, KAFKA_MIN_INSYNC_REPLICAS)', () => {
  const valid = { DATABASE_URL: 'postgresql://u:secret@db:5432/app', KAFKA_BROKERS: 'k1:9092' };
  const durability = (env: NodeJS.ProcessEnv) => {
    const { replicationFactor, minInsyncReplicas } = kafkaSettings({ ...valid, ...env });
    return { replicationFactor, minInsyncReplicas };
  };

  it('given neither, then three replicas with two in sync: a leader may fail without losing an acknowledged event', () => {
    expect(durability({})).toEqual({ replicationFactor: 3, minInsyncReplicas: 2 });
  });

  it.each([
    ['1', '1', 1, 1],
    ['3', '3', 3, 3],
    ['5', '2', 5, 2],
  ])(
    'given %s replicas with %s in sync, then they are the settings',
    (rf, isr, replicationFactor, minInsyncReplicas) => {
      expect(durability({ KAFKA_REPLICATION_FACTOR: rf, KAFKA_MIN_INSYNC_REPLICAS: isr })).toEqual({
        replicationFactor,
        minInsyncReplicas,
      });
    },
  );

  it.each([
    ['0', 'Number must be greater than 0'],
    ['-1', 'Number must be greater than 0'],
    ['1.5', 'Expected integer'],
    ['three', 'Expected number'],
  ])('given %p for either, then each variable is named with the rule', (value, rule) => {
    expect(problemsOf({ ...valid, KAFKA_REPLICATION_FACTOR: value, KAFKA_MIN_INSYNC_REPLICAS: value })).toEqual([
      expect.stringMatching(new RegExp(`^KAFKA_REPLICATION_FACTOR: ${rule}`)),
      expect.stringMatching(new RegExp(`^KAFKA_MIN_INSYNC_REPLICAS: ${rule}`)),
    ]);
  });

  it.each([
    ['more in-sync replicas than replicas', { KAFKA_REPLICATION_FACTOR: '1', KAFKA_MIN_INSYNC_REPLICAS: '2' }],
    ['the default in-sync replicas above one replica', { KAFKA_REPLICATION_FACTOR: '1' }],
  ])('given %s, then KAFKA_MIN_INSYNC_REPLICAS is refused by name', (_, env) => {
    expect(problemsOf({ ...valid, ...env })).toEqual([
      'KAFKA_MIN_INSYNC_REPLICAS: must be at most KAFKA_REPLICATION_FACTOR (a partition cannot have more in-sync replicas than replicas)',
    ]);
  });

  it('given an invalid broker list beside too many in-sync replicas, then both are named', () => {
    expect(problemsOf({ ...valid, KAFKA_BROKERS: 'k1', KAFKA_REPLICATION_FACTOR: '1' })).toEqual([
      'KAFKA_BROKERS: must be a comma-separated list of host:port',
      'KAFKA_MIN_INSYNC_REPLICAS: must be at most KAFKA_REPLICATION_FACTOR (a partition cannot have more in-sync replicas than replicas)',
    ]);
  });

  it.each([
    ['0', 'Number must be greater than 0'],
    ['-1', 'Number must be greater than 0'],
    ['1.5', 'Expected integer'],
  ])(
    'given KAFKA_REPLICATION_FACTOR %p beside the default in-sync replicas, then only the replication factor is named',
    (value, rule) => {
      expect(problemsOf({ ...valid, KAFKA_REPLICATION_FACTOR: value })).toEqual([
        expect.stringMatching(new RegExp(`^KAFKA_REPLICATION_FACTOR: ${rule}`)),
      ]);
    },
  );
});

describe('Kafka TLS and SASL (KAFKA_TLS, KAFKA_TLS_CA_FILE, KAFKA_SASL_*)', () => {
  const valid = { DATABASE_URL: 'postgresql://u:secret@db:5432/app', KAFKA_BROKERS: 'k1:9093' };
  const kafkaOf = (env: NodeJS.ProcessEnv) => kafkaSettings({ ...valid, ...env });
  let caFile: string;
  beforeAll(() => {
    caFile = join(mkdtempSync(join(tmpdir(), 'lx-config-')), 'ca.pem');
    writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
  });

  it('given none of them, then plaintext without SASL', () => {
    expect(kafkaOf({})).not.toHaveProperty('tls');
    expect(kafkaOf({})).not.toHaveProperty('sasl');
  });

  it('given TLS with a CA file, then the CA is read from it', () => {
    expect(kafkaOf({ KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: caFile }).tls).toEqual({ ca: readFileSync(caFile, 'utf8') });
  });

  it('given TLS without a CA file, then TLS with the system CAs', () => {
    expect(kafkaOf({ KAFKA_TLS: 'true' }).tls).toStrictEqual({});
  });

  it('given a user and a password, then SCRAM-SHA-512 by default, or the mechanism named', () => {
    const user = { KAFKA_SASL_USERNAME: 'lx-auth', KAFKA_SASL_PASSWORD: 'pw' };
    expect(kafkaOf(user).sasl).toEqual({ mechanism: 'scram-sha-512', username: 'lx-auth', password: 'pw' });
    expect(kafkaOf({ ...user, KAFKA_SASL_MECHANISM: 'scram-sha-256' }).sasl?.mechanism).toBe('scram-sha-256');
  });

  it.each([
    [
      'a CA file that does not exist',
      { KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: '/nonexistent/ca.pem' },
      'KAFKA_TLS_CA_FILE: cannot be read',
    ],
    [
      'a user without a password',
      { KAFKA_SASL_USERNAME: 'lx-auth' },
      'KAFKA_SASL_PASSWORD: is required with the other of KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD',
    ],
    [
      'a password without a user',
      { KAFKA_SASL_PASSWORD: 'pw' },
      'KAFKA_SASL_USERNAME: is required with the other of KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD',
    ],
    [
      'PLAIN without TLS',
      { KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'pw' },
      'KAFKA_SASL_MECHANISM: plain sends the password as it is; it needs KAFKA_TLS=true',
    ],
    ['TLS neither true nor false', { KAFKA_TLS: 'yes' }, expect.stringMatching(/^KAFKA_TLS: Invalid enum value/)],
    [
      'an unknown mechanism',
      { KAFKA_SASL_MECHANISM: 'gssapi' },
      expect.stringMatching(/^KAFKA_SASL_MECHANISM: Invalid enum value/),
    ],
  ])('given %s, then the variable is named with the rule', (_, env, problem) => {
    expect(problemsOf({ ...valid, ...env })).toEqual([problem]);
  });

  it('given a CA file without TLS, then the CA file is refused by name', () => {
    expect(problemsOf({ ...valid, KAFKA_TLS_CA_FILE: caFile })).toEqual(['KAFKA_TLS_CA_FILE: needs KAFKA_TLS=true']);
  });

  it('given PLAIN without a user, then there is no SASL and nothing to refuse', () => {
    expect(kafkaOf({ KAFKA_SASL_MECHANISM: 'plain' })).not.toHaveProperty('sasl');
  });

  it('given PLAIN inside TLS, then it is accepted', () => {
    const plain = { KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'pw' };
    expect(kafkaOf({ ...plain, KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: caFile }).sasl?.mechanism).toBe('plain');
  });
});

describe('consumer group ids (consumerGroupEnv)', () => {
  const groupSchema = z.object({ GROUP: consumerGroupEnv('svc') });

  it('given nothing, then the default group', () => {
    expect(loadConfig('svc', groupSchema, {}).GROUP).toBe('svc');
  });

  it.each(['lq-2', 'team_a.location-query', 'g'.repeat(100)])('given %p, then it is the group', (group) => {
    expect(loadConfig('svc', groupSchema, { GROUP: group }).GROUP).toBe(group);
  });

  it.each([
    ['a space', 'a group', 'must be a Kafka group id of letters, digits, ".", "_" and "-"'],
    ['nothing', '', 'must be a Kafka group id of letters, digits, ".", "_" and "-"'],
    ['101 characters', 'g'.repeat(101), 'must be at most 100 characters'],
  ])('given a group with %s, then it is refused', (_, group, rule) => {
    expect(problemsOf({ GROUP: group }, groupSchema)).toEqual([`GROUP: ${rule}`]);
  });
});

describe('storage settings (storageEnv)', () => {
  const storageSchema = z.object(storageEnv).superRefine(storageEnvRules).transform(storageConfig);
  const keys = { MINIO_ACCESS_KEY: 'minioadmin', MINIO_SECRET_KEY: 'minio-secret' };
  const problemsOfStorage = (env: NodeJS.ProcessEnv) => problemsOf(env, storageSchema);

  it('given the endpoint and keys only, then the public endpoint is the endpoint and bucket and region are defaults', () => {
    expect(loadConfig('svc', storageSchema, { MINIO_ENDPOINT_URL: 'http://minio:9000', ...keys })).toEqual({
      driver: 'minio',
      endpointUrl: 'http://minio:9000',
      publicEndpointUrl: 'http://minio:9000',
      accessKey: 'minioadmin',
      secretKey: 'minio-secret',
      bucket: 'location-exports',
      region: 'us-east-1',
    });
  });

  it.each([
    ['http://minio:9000', 'https://files.example.com'],
    ['https://s3.example.com', 'http://127.0.0.1:9000'],
  ])('given the endpoint %s and the public endpoint %s, then both are kept', (endpoint, publicEndpoint) => {
    const config = loadConfig('svc', storageSchema, {
      MINIO_ENDPOINT_URL: endpoint,
      MINIO_PUBLIC_ENDPOINT_URL: publicEndpoint,
      MINIO_BUCKET: 'exports.v2',
      MINIO_REGION: 'eu-central-1',
      ...keys,
    });
    expect(config).toMatchObject({
      endpointUrl: endpoint,
      publicEndpointUrl: publicEndpoint,
      bucket: 'exports.v2',
      region: 'eu-central-1',
    });
  });

  it('given endpoints that are not http(s) and empty keys and region, then each is refused by name', () => {
    expect(
      problemsOfStorage({
        MINIO_ENDPOINT_URL: 'ftp://minio:21',
        MINIO_PUBLIC_ENDPOINT_URL: 's3://bucket',
        MINIO_ACCESS_KEY: '',
        MINIO_SECRET_KEY: '',
        MINIO_REGION: '',
      }),
    ).toEqual([
      'MINIO_ENDPOINT_URL: must be a http: or https: URL',
      'MINIO_PUBLIC_ENDPOINT_URL: must be a http: or https: URL',
      'MINIO_ACCESS_KEY: String must contain at least 1 character(s)',
      'MINIO_SECRET_KEY: String must contain at least 1 character(s)',
      'MINIO_REGION: String must contain at least 1 character(s)',
    ]);
  });

  it.each(['Exports', 'exports-', '-exports', 'ex', 'e'.repeat(64), 'my_exports'])(
    'given MINIO_BUCKET %p, then it is refused as not a valid bucket name',
    (bucket) => {
      expect(problemsOfStorage({ MINIO_ENDPOINT_URL: 'http://minio:9000', MINIO_BUCKET: bucket, ...keys })).toEqual([
        'MINIO_BUCKET: must be a valid bucket name',
      ]);
    },
  );

  it.each(['abc', 'e'.repeat(63), '9.exports-1'])('given MINIO_BUCKET %p, then it is accepted', (bucket) => {
    expect(
      loadConfig('svc', storageSchema, { MINIO_ENDPOINT_URL: 'http://minio:9000', MINIO_BUCKET: bucket, ...keys }),
    ).toMatchObject({ driver: 'minio', bucket });
  });

  it('given OBJECT_STORE=minio (the default) without its endpoint and keys, then each is named as required with it', () => {
    expect(problemsOfStorage({})).toEqual([
      'MINIO_ENDPOINT_URL: is required with OBJECT_STORE=minio',
      'MINIO_ACCESS_KEY: is required with OBJECT_STORE=minio',
      'MINIO_SECRET_KEY: is required with OBJECT_STORE=minio',
    ]);
  });

  describe('OBJECT_STORE=local', () => {
    const signingKey = Buffer.alloc(32, 7).toString('base64');
    const local = {
      OBJECT_STORE: 'local',
      LOCAL_STORE_DIRECTORY: '/var/lib/lx/exports',
      LOCAL_STORE_PUBLIC_URL: 'http://127.0.0.1:8080/downloads',
      LOCAL_STORE_SIGNING_KEY: signingKey,
    };

    it('given its directory, download URL and signing key, then those are the settings and MinIO needs nothing', () => {
      expect(loadConfig('svc', storageSchema, local)).toEqual({
        driver: 'local',
        directory: '/var/lib/lx/exports',
        publicBaseUrl: 'http://127.0.0.1:8080/downloads',
        signingKey,
      });
    });

    it('given none of its settings, then each is named as required with it', () => {
      expect(problemsOfStorage({ OBJECT_STORE: 'local' })).toEqual([
        'LOCAL_STORE_DIRECTORY: is required with OBJECT_STORE=local',
        'LOCAL_STORE_PUBLIC_URL: is required with OBJECT_STORE=local',
        'LOCAL_STORE_SIGNING_KEY: is required with OBJECT_STORE=local',
      ]);
    });

    it.each([
      ['32 bytes', signingKey],
      ['33 bytes (no padding)', Buffer.alloc(33, 7).toString('base64')],
      ['64 bytes (two padding characters)', Buffer.alloc(64, 7).toString('base64')],
    ])('given a signing key of %s, then it is accepted', (_, key) => {
      expect(loadConfig('svc', storageSchema, { ...local, LOCAL_STORE_SIGNING_KEY: key })).toMatchObject({
        signingKey: key,
      });
    });

    it.each([
      ['31 bytes', Buffer.alloc(31, 1).toString('base64')],
      ['not base64', 'not base64 at all, but long enough to be 32 bytes'],
      // Node's base64 decoder skips what is not base64: these would decode to 32 bytes.
      ['a character before the base64', `!${signingKey}`],
      ['a character after the base64', `${signingKey}!`],
    ])('given a signing key of %s, then it is refused without its value', (_, key) => {
      const problems = problemsOfStorage({ ...local, LOCAL_STORE_SIGNING_KEY: key });
      expect(problems).toEqual(['LOCAL_STORE_SIGNING_KEY: must be at least 32 bytes, base64-encoded']);
      expect(problems.join('\n')).not.toContain(key);
    });

    it('given a download URL that is not http(s), then it is refused', () => {
      expect(problemsOfStorage({ ...local, LOCAL_STORE_PUBLIC_URL: 'file:///tmp' })).toEqual([
        'LOCAL_STORE_PUBLIC_URL: must be a http: or https: URL',
      ]);
    });
  });
});

describe('service client settings (serviceClientEnv)', () => {
  const clientSchema = z.object(serviceClientEnv).transform(serviceClientConfig);

  it.each(['http://auth:3001/oauth/token', 'https://auth.internal/oauth/token'])(
    'given the token URL %s and the client credentials, then they are the service client settings',
    (tokenUrl) => {
      expect(
        loadConfig('svc', clientSchema, {
          AUTH_TOKEN_URL: tokenUrl,
          SERVICE_CLIENT_ID: 'export-worker',
          SERVICE_CLIENT_SECRET: 's3cret-value',
        }),
      ).toEqual({ tokenUrl, clientId: 'export-worker', clientSecret: 's3cret-value' });
    },
  );

  it('given a token URL that is not http(s) and empty credentials, then each is refused by name', () => {
    expect(
      problemsOf(
        { AUTH_TOKEN_URL: 'ftp://auth/token', SERVICE_CLIENT_ID: '', SERVICE_CLIENT_SECRET: '' },
        clientSchema,
      ),
    ).toEqual([
      'AUTH_TOKEN_URL: must be a http: or https: URL',
      'SERVICE_CLIENT_ID: String must contain at least 1 character(s)',
      'SERVICE_CLIENT_SECRET: String must contain at least 1 character(s)',
    ]);
  });
});

describe('httpUrlEnv', () => {
  it.each([
    ['http://location-query:3003', true],
    ['https://location-query.internal', true],
    ['ftp://location-query', false],
    ['location-query:3003', false],
  ])('given %s, then it is accepted: %s', (value, accepted) => {
    expect(httpUrlEnv.safeParse(value).success).toBe(accepted);
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
      revocationsUrl: 'http://127.0.0.1:3001/internal/revocations',
      revocationsRefreshMs: 2_000,
    });
  });

  it('given a JWKS URL, then the revocation list is polled at its origin unless AUTH_REVOCATIONS_URL says where', () => {
    expect(load({ AUTH_JWKS_URL: 'http://auth.lx.svc:8080/.well-known/jwks.json' }).revocationsUrl).toBe(
      'http://auth.lx.svc:8080/internal/revocations',
    );
    expect(load({ AUTH_REVOCATIONS_URL: 'https://auth.example/internal/revocations' }).revocationsUrl).toBe(
      'https://auth.example/internal/revocations',
    );
    const explicit = load({
      AUTH_JWKS_URL: 'https://api.example.com/.well-known/jwks.json',
      AUTH_REVOCATIONS_URL: 'http://auth:3000/internal/revocations',
      AUTH_REVOCATIONS_REFRESH_MS: '500',
    });
    expect(explicit).toMatchObject({
      revocationsUrl: 'http://auth:3000/internal/revocations',
      revocationsRefreshMs: 500,
    });
  });

  it.each([
    ['AUTH_REVOCATIONS_REFRESH_MS', '99'],
    ['AUTH_REVOCATIONS_REFRESH_MS', '60001'],
    ['AUTH_REVOCATIONS_URL', 'ftp://auth/internal/revocations'],
  ])('given %s=%s, then it is refused by name', (name, value) => {
    expect(problemsOfAuth({ [name]: value })).toEqual([expect.stringMatching(new RegExp(`^${name}: `))]);
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
    ['https://user@api.example.com', 'must not contain credentials'],
    ['https://:pw@api.example.com', 'must not contain credentials'],
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

  it('given an https JWKS URL, then it is kept', () => {
    expect(load({ AUTH_JWKS_URL: 'https://auth.internal/.well-known/jwks.json' }).jwksUrl).toBe(
      'https://auth.internal/.well-known/jwks.json',
    );
  });

  it('given a JWKS URL that is not http(s), then it is refused', () => {
    expect(problemsOfAuth({ AUTH_JWKS_URL: 'file:///etc/jwks.json' })).toEqual([
      'AUTH_JWKS_URL: must be a http: or https: URL',
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
