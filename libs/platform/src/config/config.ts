import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { z } from 'zod';
import { CONSUMER_GROUP_MAX_LENGTH, REVOCATIONS_PATH, topicPrefixProblem } from '@lx/contracts';
import { parseRateLimits, type RateLimits } from '../rate-limit/rate-limit';

/** Raised at boot when the environment does not describe a runnable service. Lists names, never values. */
export class ConfigError extends Error {
  constructor(
    readonly service: string,
    readonly problems: readonly string[],
  ) {
    super(`${service}: invalid configuration\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

type DeepReadonly<T> = T extends (infer E)[]
  ? readonly DeepReadonly<E>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

function deepFreeze<T>(value: T): DeepReadonly<T> {
  if (value && typeof value === 'object') {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value as DeepReadonly<T>;
}

/**
 * Parses the environment with a service's schema: the only place a service reads `process.env`.
 * On failure every offending variable is named with what is wrong with it; values are never echoed.
 */
export function loadConfig<S extends z.ZodTypeAny>(
  service: string,
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): DeepReadonly<z.output<S>> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = issue.path.join('.') || '(environment)';
      const isMissing = issue.code === 'invalid_type' && issue.received === 'undefined';
      // zod's messages may quote the received value ("…, received 'x'"), which may span lines; cut it off.
      return isMissing ? `${name} is required` : `${name}: ${issue.message.replace(/, received .*$/s, '')}`;
    });
    throw new ConfigError(service, problems);
  }
  return deepFreeze(parsed.data as z.output<S>);
}

const port = z.coerce.number().int().min(1).max(65535);
const url = (protocols: readonly string[]) =>
  z
    .string()
    .url()
    // zod runs this refinement on a value .url() refused too: that one is reported once, by .url(), not thrown here.
    .refine((value) => !URL.canParse(value) || protocols.includes(new URL(value).protocol), {
      message: `must be a ${protocols.join(' or ')} URL`,
    });
const boolean = z.enum(['true', 'false']).transform((value) => value === 'true');

/** The longest time a service takes to receive a whole request (headers and body) by default: Node's own default. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 300_000;

/**
 * READINESS_GRACE_MS's default: 20 s. A check that fails or answers late for a moment (a node short of CPU while a
 * rollout starts pods beside it, a database failover) takes no replica out of its Service; an outage does, once it has
 * lasted that long and the kubelet has seen its failureThreshold of 503s.
 */
export const DEFAULT_READINESS_GRACE_MS = 20_000;

/** Address ranges proxy-addr (Fastify's trustProxy) knows by name. */
const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/** An address or CIDR range, or a named range: the grammar of Fastify's trustProxy list. */
function isProxyEntry(entry: string): boolean {
  if (NAMED_RANGES.includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * The proxies whose X-Forwarded-For is believed: comma-separated addresses, CIDR ranges or the names `loopback`,
 * `linklocal`, `uniquelocal` (the private ranges); empty trusts none. A request's source address (what the token
 * endpoint throttles by) is the last address of the chain that is not a trusted proxy.
 */
const trustedProxies = z.string().transform((value, ctx) => {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const wrong = entries.filter((entry) => !isProxyEntry(entry));
  if (wrong.length > 0) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: `must list addresses, CIDR ranges or ${NAMED_RANGES.join(', ')}; not: ${wrong.join(', ')}`,
    });
    return z.NEVER;
  }
  return entries;
});

const OTLP_PROTOCOL = z.enum(['http/protobuf', 'http/json', 'grpc']).refine((value) => value !== 'grpc', {
  message: 'grpc is not supported: use http/protobuf (the default) or http/json',
});
const TRACES_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/**
 * OpenTelemetry's standard variables, as far as the services use them (docs/operations.md, Tracing). Tracing is off
 * unless OTEL_TRACES_EXPORTER is `otlp` or `console`, or an OTLP endpoint is set without OTEL_TRACES_EXPORTER;
 * OTEL_SDK_DISABLED=true turns it off whatever else is set. Checked here so a typo stops the service at start instead
 * of leaving it untraced; the OTLP exporter, sampler and batch processor then read their variables themselves.
 */
const tracingEnv = {
  OTEL_SDK_DISABLED: boolean.default('false'),
  OTEL_TRACES_EXPORTER: z.enum(['none', 'otlp', 'console']).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: url(['http:', 'https:']).optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url(['http:', 'https:']).optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: OTLP_PROTOCOL.optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: OTLP_PROTOCOL.optional(),
  OTEL_TRACES_SAMPLER: z.enum(TRACES_SAMPLERS).optional(),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
};

/**
 * HTTP listener settings shared by every service; each service has its own default port, and may have its own default
 * request deadline (location-command reads an import's body as the import runs, so it allows longer).
 */
export const httpEnv = (defaultPort: number, defaultRequestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS) => ({
  HTTP_HOST: z.string().min(1).default('0.0.0.0'),
  HTTP_PORT: port.default(defaultPort),
  HTTP_BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1_048_576),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(defaultRequestTimeoutMs),
  HTTP_TRUSTED_PROXIES: trustedProxies.default('loopback'),
  READINESS_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(DEFAULT_READINESS_GRACE_MS),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ...tracingEnv,
});

/**
 * TLS to PostgreSQL, as libpq names the modes: `disable` (none), `require` (encrypted, the server's certificate not
 * checked) or `verify-full` (its certificate must chain to DATABASE_SSL_CA_FILE, or to the system's CAs without one,
 * and name the host of DATABASE_URL).
 */
export const DATABASE_SSL_MODES = ['disable', 'require', 'verify-full'] as const;
export type DatabaseSslMode = (typeof DATABASE_SSL_MODES)[number];

/**
 * Query parameters with which node-postgres takes TLS settings from the URL itself (pg-connection-string). It lets
 * them override the `ssl` option it is given, so a URL carrying one and DATABASE_SSL_MODE together would silently
 * follow the URL: that combination is refused.
 */
const URL_SSL_PARAMETERS = ['ssl', 'sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'sslnegotiation'] as const;

/**
 * A PEM certificate file, read at start so that a missing or unreadable one stops the service with the variable's name;
 * the parsed value is the file's text (plain text: the relay's worker thread receives it with the configuration).
 */
const pemFile = z
  .string()
  .min(1)
  .transform((file, ctx) => {
    let pem: string;
    try {
      pem = readFileSync(file, 'utf8');
    } catch {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'cannot be read' });
      return z.NEVER;
    }
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'holds no PEM certificate' });
      return z.NEVER;
    }
    return pem;
  });

/** PostgreSQL settings; each service owns one schema in the shared database, and logs in as its own role. */
export const databaseEnv = {
  DATABASE_URL: url(['postgres:', 'postgresql:']),
  DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier')
    .optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  DATABASE_MIGRATE_ON_BOOT: boolean.default('true'),
  DATABASE_SSL_MODE: z.enum(DATABASE_SSL_MODES).optional(),
  DATABASE_SSL_CA_FILE: pemFile.optional(),
  /**
   * An administrator's login (a superuser, or a role with CREATEROLE that owns the schemas so far), read by `migrate`
   * only: given it, `migrate` first makes DATABASE_URL's user the owner of the schema (see provisionSchemaOwner).
   * Services never get it.
   */
  DATABASE_ADMIN_URL: url(['postgres:', 'postgresql:']).optional(),
};

/** The rules across databaseEnv's variables: every service schema that spreads databaseEnv refines itself with it. */
export function databaseEnvRules(env: Env<typeof databaseEnv>, ctx: z.RefinementCtx): void {
  const problem = (path: keyof typeof databaseEnv, message: string) =>
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: [path], message });
  if (env.DATABASE_SSL_MODE !== undefined) {
    for (const [name, value] of [
      ['DATABASE_URL', env.DATABASE_URL],
      ['DATABASE_ADMIN_URL', env.DATABASE_ADMIN_URL],
    ] as const) {
      // An absent URL has no parameters; an invalid one is reported once, by its own rule (zod still runs this one).
      if (value === undefined || !URL.canParse(value)) continue;
      const parameters = new URL(value).searchParams;
      const found = URL_SSL_PARAMETERS.filter((parameter) => parameters.has(parameter));
      if (found.length > 0) {
        problem(name, `must not set ${found.join(', ')} when DATABASE_SSL_MODE is set (it would override it)`);
      }
    }
  }
  if (env.DATABASE_SSL_CA_FILE !== undefined && env.DATABASE_SSL_MODE !== 'verify-full') {
    problem('DATABASE_SSL_CA_FILE', 'is only used with DATABASE_SSL_MODE=verify-full');
  }
}

/**
 * 32 bytes, base64: an AES-256-GCM key. Kept as text because the frozen configuration cannot hold a Buffer (typed
 * arrays cannot be frozen).
 */
export const encryptionKey = z
  .string()
  .refine((value) => /^[A-Za-z0-9+/]+={0,2}$/.test(value) && Buffer.from(value, 'base64').length === 32, {
    message: 'must be 32 bytes, base64-encoded',
  });

/**
 * The event bus of the services (EVENT_BUS): `kafka` (the default: the stack, Kubernetes) or `postgres` (the event log
 * in tables of the service's own database, for a single-node deployment such as the embedded profile; one replica per
 * service). Kafka's settings follow; KAFKA_BROKERS is required with `kafka` only.
 */
export const eventBusEnv = {
  EVENT_BUS: z.enum(['kafka', 'postgres']).default('kafka'),
  KAFKA_BROKERS: z
    .string()
    .min(1)
    .transform((value) => value.split(',').map((broker) => broker.trim()))
    .refine((brokers) => brokers.every((broker) => /^[^\s:]+:\d+$/.test(broker)), {
      message: 'must be a comma-separated list of host:port',
    })
    .optional(),
  /**
   * Put before every topic, dead-letter topic and consumer group of the deployment (`<prefix>.location.events.v1`),
   * so deployments sharing a Kafka cluster never meet; empty (the default): the declared names as they are.
   */
  KAFKA_TOPIC_PREFIX: z
    .string()
    .default('')
    .superRefine((prefix, ctx) => {
      const problem = topicPrefixProblem(prefix);
      if (problem !== undefined) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
    }),
  /**
   * Replicas of every topic the services create, and the in-sync replicas a write acknowledged with acks=all needs.
   * The defaults suit a cluster of three brokers or more: an acknowledged event is on two brokers, so it survives the
   * loss of its partition leader, and one broker may be down without stopping writes. A single broker needs 1 and 1.
   */
  KAFKA_REPLICATION_FACTOR: z.coerce.number().int().positive().default(3),
  KAFKA_MIN_INSYNC_REPLICAS: z.coerce.number().int().positive().default(2),
  /** TLS to the brokers; the CA that signed their certificates is KAFKA_TLS_CA_FILE (the system's CAs without it). */
  KAFKA_TLS: boolean.default('false'),
  /** A PEM file of the CA(s) to trust, read at start (pemFile). */
  KAFKA_TLS_CA_FILE: pemFile.optional(),
  /** SASL: the service's own principal on the cluster (docs/security.md); none when KAFKA_SASL_USERNAME is unset. */
  KAFKA_SASL_MECHANISM: z.enum(['scram-sha-512', 'scram-sha-256', 'plain']).default('scram-sha-512'),
  KAFKA_SASL_USERNAME: z.string().min(1).optional(),
  KAFKA_SASL_PASSWORD: z.string().min(1).optional(),
};

/**
 * The rules across eventBusEnv's variables, which a shape of single variables cannot state: every service schema that
 * spreads eventBusEnv refines itself with them. More in-sync replicas than replicas would refuse every write.
 */
export function eventBusEnvRules(env: Env<typeof eventBusEnv>, ctx: z.RefinementCtx): void {
  if (env.EVENT_BUS === 'kafka' && env.KAFKA_BROKERS === undefined) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['KAFKA_BROKERS'], message: 'is required with EVENT_BUS=kafka' });
  }
  const replicas = env.KAFKA_REPLICATION_FACTOR;
  // A replication factor that is itself refused (0, 1.5) is reported once, by its own rule.
  if (Number.isInteger(replicas) && replicas > 0 && env.KAFKA_MIN_INSYNC_REPLICAS > replicas) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['KAFKA_MIN_INSYNC_REPLICAS'],
      message: 'must be at most KAFKA_REPLICATION_FACTOR (a partition cannot have more in-sync replicas than replicas)',
    });
  }
  if (env.KAFKA_TLS_CA_FILE !== undefined && !env.KAFKA_TLS) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['KAFKA_TLS_CA_FILE'], message: 'needs KAFKA_TLS=true' });
  }
  if ((env.KAFKA_SASL_USERNAME === undefined) !== (env.KAFKA_SASL_PASSWORD === undefined)) {
    const missing = env.KAFKA_SASL_USERNAME === undefined ? 'KAFKA_SASL_USERNAME' : 'KAFKA_SASL_PASSWORD';
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: [missing],
      message: 'is required with the other of KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD',
    });
  }
  // PLAIN sends the password itself: only inside TLS. (SCRAM never sends it.)
  if (env.KAFKA_SASL_MECHANISM === 'plain' && env.KAFKA_SASL_USERNAME !== undefined && !env.KAFKA_TLS) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['KAFKA_SASL_MECHANISM'],
      message: 'plain sends the password as it is; it needs KAFKA_TLS=true',
    });
  }
}

/**
 * A Kafka consumer group id from the environment, with its default. Short enough that the dead-letter topics named
 * after it fit Kafka's limit under the longest topic prefix (see CONSUMER_GROUP_MAX_LENGTH).
 */
export const consumerGroupEnv = (defaultGroup: string) =>
  z
    .string()
    .regex(/^[A-Za-z0-9._-]+$/, 'must be a Kafka group id of letters, digits, ".", "_" and "-"')
    .max(CONSUMER_GROUP_MAX_LENGTH, `must be at most ${CONSUMER_GROUP_MAX_LENGTH} characters`)
    .default(defaultGroup);

/** How long a service's transactional outbox keeps a row after it was published (OutboxModule's retention). */
export const outboxEnv = {
  OUTBOX_RETENTION_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(3650 * 86_400)
    .default(7 * 86_400),
};

/**
 * Per-client rate limits of a service's RSP-facing routes (RateLimitModule): RATE_LIMITS lists `KIND=quota/seconds` or
 * `KIND=off` entries over the defaults (DEFAULT_RATE_LIMITS); RATE_LIMIT_SYNC_MS is how often each replica adds its
 * counts to the shared ones.
 */
export const rateLimitEnv = {
  RATE_LIMITS: z
    .string()
    .default('')
    .transform((value, ctx) => {
      const parsed = parseRateLimits(value);
      if (parsed.ok) return parsed.value;
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: parsed.problems.join('; ') });
      return z.NEVER;
    }),
  RATE_LIMIT_SYNC_MS: z.coerce.number().int().min(100).max(60_000).default(500),
};

/**
 * The pool of a service's RSP-facing reads (ReadPoolModule): its size, the statement timeout of every read, how many
 * list reads run at once, and how long a read waits for a connection or a list slot before it is answered 503.
 */
export const readPoolEnv = {
  READ_POOL_SIZE: z.coerce.number().int().min(2).max(100).default(6),
  READ_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(10).max(600_000).default(5_000),
  READ_SCAN_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(2),
  READ_QUEUE_TIMEOUT_MS: z.coerce.number().int().min(10).max(600_000).default(5_000),
};

/** The read pool's settings that hold together: list reads must leave reads by id a connection. */
export function readPoolEnvRules(env: Env<typeof readPoolEnv>, ctx: z.RefinementCtx): void {
  // A pool size that is itself refused (1, 1.5) is reported once, by its own rule.
  const size = env.READ_POOL_SIZE;
  if (Number.isInteger(size) && size >= 2 && env.READ_SCAN_CONCURRENCY >= size) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['READ_SCAN_CONCURRENCY'],
      message: 'must be less than READ_POOL_SIZE (list reads must leave reads by id a connection)',
    });
  }
}

/**
 * Object storage (OBJECT_STORE): `minio` (the default: MinIO or S3, MINIO_* below) or `local` (files under
 * LOCAL_STORE_DIRECTORY, downloaded through signed URLs below LOCAL_STORE_PUBLIC_URL that whoever serves that URL checks
 * with LOCAL_STORE_SIGNING_KEY: the embedded profile). Each kind's own settings are required with it only.
 */
export const storageEnv = {
  OBJECT_STORE: z.enum(['minio', 'local']).default('minio'),
  MINIO_ENDPOINT_URL: url(['http:', 'https:']).optional(),
  MINIO_PUBLIC_ENDPOINT_URL: url(['http:', 'https:']).optional(),
  MINIO_ACCESS_KEY: z.string().min(1).optional(),
  MINIO_SECRET_KEY: z.string().min(1).optional(),
  MINIO_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a valid bucket name')
    .default('location-exports'),
  MINIO_REGION: z.string().min(1).default('us-east-1'),
  LOCAL_STORE_DIRECTORY: z.string().min(1).optional(),
  LOCAL_STORE_PUBLIC_URL: url(['http:', 'https:']).optional(),
  /** The HMAC-SHA256 key of the download URLs: at least 32 bytes, base64-encoded. */
  LOCAL_STORE_SIGNING_KEY: z
    .string()
    .refine((value) => /^[A-Za-z0-9+/]+={0,2}$/.test(value) && Buffer.from(value, 'base64').length >= 32, {
      message: 'must be at least 32 bytes, base64-encoded',
    })
    .optional(),
};

/** Each OBJECT_STORE's own settings, required with it. */
export function storageEnvRules(env: Env<typeof storageEnv>, ctx: z.RefinementCtx): void {
  const required =
    env.OBJECT_STORE === 'minio'
      ? (['MINIO_ENDPOINT_URL', 'MINIO_ACCESS_KEY', 'MINIO_SECRET_KEY'] as const)
      : (['LOCAL_STORE_DIRECTORY', 'LOCAL_STORE_PUBLIC_URL', 'LOCAL_STORE_SIGNING_KEY'] as const);
  for (const name of required.filter((variable) => env[variable] === undefined)) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: [name],
      message: `is required with OBJECT_STORE=${env.OBJECT_STORE}`,
    });
  }
}

/** What is wrong with a value as an issuer identifier (see `issuer` below), or undefined when nothing is. */
function issuerProblem(value: string): string | undefined {
  const parsed = URL.canParse(value) ? new URL(value) : undefined;
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    return 'must be an absolute http or https URL, the public base URL of the API (a former issuer name belongs in AUTH_ACCEPTED_ISSUERS)';
  }
  if (parsed.username !== '' || parsed.password !== '') return 'must not contain credentials';
  if (value.includes('?') || value.includes('#')) return 'must not have a query or a fragment';
  if (parsed.pathname !== '/') return 'must not have a path: the API is served from the root of its host';
  return undefined;
}

/**
 * The issuer identifier (RFC 8414 section 2): the public base URL of the API, scheme, host and port only, kept in one
 * canonical form (the URL's origin: lower-case, default port and trailing slash dropped), so the auth service that
 * signs and every service that verifies hold the same string however it was written. No path: RFC 8414 and OpenID
 * Connect Discovery place the metadata of an issuer with a path at different URLs (RFC 8414 section 5).
 */
const issuer = z.string().transform((value, ctx) => {
  const problem = issuerProblem(value);
  if (problem !== undefined) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
    return z.NEVER;
  }
  return new URL(value).origin;
});

/**
 * Further issuers whose tokens verifiers accept: comma-separated, compared exactly, except that an entry that is a
 * valid issuer URL is put in the canonical form `issuer` gives (so `https://old.example/` matches the `iss` the auth
 * service wrote while that was its AUTH_ISSUER).
 */
const acceptedIssuers = z
  .string()
  .default('')
  .transform((value, ctx) => {
    if (value.trim() === '') return [];
    const entries = value.split(',').map((entry) => entry.trim());
    if (entries.includes('')) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be a comma-separated list without empty entries' });
      return z.NEVER;
    }
    return [...new Set(entries.map((entry) => (issuerProblem(entry) === undefined ? new URL(entry).origin : entry)))];
  });

/** Where services find the keys that sign access tokens, and what the tokens must say. */
export const authEnv = {
  AUTH_JWKS_URL: url(['http:', 'https:']).default('http://127.0.0.1:3001/.well-known/jwks.json'),
  // The auth service's own address with every default (the host of AUTH_JWKS_URL's default): a lone auth service is
  // the issuer it names. The local stack sets the ingress's BASE_URL; a deployment sets its public base URL.
  AUTH_ISSUER: issuer.default('http://127.0.0.1:3001'),
  AUTH_ACCEPTED_ISSUERS: acceptedIssuers,
  AUTH_AUDIENCE: z.string().min(1).default('location-exchange-api'),
  // The auth service's revocation list; by default at AUTH_JWKS_URL's origin.
  AUTH_REVOCATIONS_URL: url(['http:', 'https:']).optional(),
  AUTH_REVOCATIONS_REFRESH_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
};

type Env<T extends z.ZodRawShape> = z.output<z.ZodObject<T>>;

type HttpEnv = Env<ReturnType<typeof httpEnv>>;

/** An http(s) URL setting, such as the internal base URL of another service. */
export const httpUrlEnv = url(['http:', 'https:']);

/**
 * Credentials of a service that calls other services' internal endpoints with a token of its own (OAuth 2.0
 * client-credentials grant at the auth service's token endpoint).
 */
export const serviceClientEnv = {
  AUTH_TOKEN_URL: httpUrlEnv,
  SERVICE_CLIENT_ID: z.string().min(1),
  SERVICE_CLIENT_SECRET: z.string().min(1),
};

export interface HttpConfig {
  host: string;
  port: number;
  bodyLimitBytes: number;
  /** The longest time to receive a whole request, headers and body; then 408 REQUEST_TIMEOUT and the connection closes. */
  requestTimeoutMs: number;
  /** HTTP_TRUSTED_PROXIES: whose X-Forwarded-For gives a request's source address; absent or empty: nobody's. */
  trustedProxies?: readonly string[];
  logLevel: HttpEnv['LOG_LEVEL'];
  /**
   * How long a dependency that answered once may go on failing before /health/ready answers 503 (HealthModule); a
   * dependency that never answered makes it 503 at once. Absent: DEFAULT_READINESS_GRACE_MS.
   */
  readinessGraceMs?: number;
  /** Off when absent. */
  tracing?: TracingConfig;
}

/** Where a service's spans go (OTEL_* variables, see tracingEnv). */
export interface TracingConfig {
  exporter: 'none' | 'otlp' | 'console';
  /** The OTLP encoding over HTTP: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL. */
  protocol: 'http/protobuf' | 'http/json';
  /** OTEL_SERVICE_NAME; the service's own name without it. */
  serviceName?: string;
}
export interface DatabaseConfig {
  url: string;
  schema: string;
  poolSize: number;
  migrateOnBoot: boolean;
  /**
   * DATABASE_SSL_MODE, with the PEM text of DATABASE_SSL_CA_FILE (read at start: plain text, so the relay's worker
   * thread receives it too); undefined when unset: then the URL decides, without TLS unless it asks for it.
   */
  ssl?: { mode: DatabaseSslMode; ca?: string };
  /** DATABASE_ADMIN_URL: the login `migrate` provisions the schema's owner with; never given to a running service. */
  adminUrl?: string;
}
export interface ReadPoolConfig {
  /** READ_POOL_SIZE: connections of the RSP-facing reads, besides DATABASE_POOL_SIZE. */
  poolSize: number;
  /** READ_STATEMENT_TIMEOUT_MS: longest statement of a read; past it the read is cancelled and answered 503. */
  statementTimeoutMs: number;
  /** READ_SCAN_CONCURRENCY: list reads running at once (the rest of the pool stays for reads by id). */
  scanConcurrency: number;
  /** READ_QUEUE_TIMEOUT_MS: longest wait for a connection or a list slot before 503. */
  queueTimeoutMs: number;
}
export interface KafkaConfig {
  brokers: readonly string[];
  clientId: string;
  /** KAFKA_TOPIC_PREFIX: the deployment's topics and groups on the cluster are `<prefix>.<name>`; '' for none. */
  topicPrefix: string;
  /** KAFKA_REPLICATION_FACTOR: replicas of each topic created; existing topics must have at least as many. */
  replicationFactor: number;
  /** KAFKA_MIN_INSYNC_REPLICAS: `min.insync.replicas` of each topic created; existing topics need at least as much. */
  minInsyncReplicas: number;
  /** KAFKA_TLS and the PEM of KAFKA_TLS_CA_FILE (undefined: the system's CAs); undefined without TLS. */
  tls?: { ca?: string };
  /** KAFKA_SASL_*: the principal the service authenticates as; undefined without SASL. */
  sasl?: { mechanism: 'scram-sha-512' | 'scram-sha-256' | 'plain'; username: string; password: string };
}
/** EVENT_BUS and, with `kafka`, Kafka's settings (eventBusEnv). */
export type EventBusConfig = { driver: 'kafka'; kafka: KafkaConfig } | { driver: 'postgres' };
export interface RateLimitConfig {
  /** The quota of each client kind; null: not limited. */
  limits: RateLimits;
  /** How often a replica adds its counts to the shared table and reads the totals back. */
  syncMs: number;
}
export interface OutboxConfig {
  /** Seconds a published outbox row is kept (for diagnosis) before retention deletes it. */
  retentionSeconds: number;
}

/** MinIO's (or S3's) settings: MINIO_*. */
export interface MinioStorageConfig {
  endpointUrl: string;
  publicEndpointUrl: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region: string;
}

/** The local file store's settings: LOCAL_STORE_*. */
export interface LocalStorageConfig {
  /** Where the objects live, one file per key. */
  directory: string;
  /** Base of the download URLs (whoever serves it checks their signatures). */
  publicBaseUrl: string;
  /** The signing key of the download URLs, base64 (text: the frozen configuration cannot hold a Buffer). */
  signingKey: string;
}

/** OBJECT_STORE and its own settings (storageEnv). */
export type StorageConfig = ({ driver: 'minio' } & MinioStorageConfig) | ({ driver: 'local' } & LocalStorageConfig);

export interface ServiceClientConfig {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
}

export interface AuthConfig {
  jwksUrl: string;
  /**
   * `iss` of the tokens the auth service signs and the issuer of its metadata: the API's public base URL (an origin,
   * no trailing slash). Verifiers accept it and `acceptedIssuers`.
   */
  issuer: string;
  /** Further `iss` values verifiers accept, such as a former issuer until its last tokens have expired; often none. */
  acceptedIssuers: readonly string[];
  audience: string;
  /** The auth service's revocation list (GET), which every verifier polls. */
  revocationsUrl: string;
  /** How often it is polled: the longest a revocation takes to reach a verifier, beyond one round trip. */
  revocationsRefreshMs: number;
}

export const httpConfig = (env: HttpEnv): HttpConfig => ({
  host: env.HTTP_HOST,
  port: env.HTTP_PORT,
  bodyLimitBytes: env.HTTP_BODY_LIMIT_BYTES,
  requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
  trustedProxies: env.HTTP_TRUSTED_PROXIES,
  readinessGraceMs: env.READINESS_GRACE_MS,
  logLevel: env.LOG_LEVEL,
  tracing: tracingConfig(env),
});

function tracingConfig(env: HttpEnv): TracingConfig {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const chosen = env.OTEL_TRACES_EXPORTER ?? (endpoint === undefined ? 'none' : 'otlp');
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  return {
    exporter: env.OTEL_SDK_DISABLED ? 'none' : chosen,
    protocol: protocol === 'http/json' ? 'http/json' : 'http/protobuf',
    ...(env.OTEL_SERVICE_NAME === undefined ? {} : { serviceName: env.OTEL_SERVICE_NAME }),
  };
}
/** `schema` is the service's own schema name; DATABASE_SCHEMA overrides it (tests isolate themselves that way). */
export const databaseConfig = (env: Env<typeof databaseEnv>, schema: string): DatabaseConfig => ({
  url: env.DATABASE_URL,
  schema: env.DATABASE_SCHEMA ?? schema,
  poolSize: env.DATABASE_POOL_SIZE,
  migrateOnBoot: env.DATABASE_MIGRATE_ON_BOOT,
  ...(env.DATABASE_SSL_MODE !== undefined && {
    ssl: {
      mode: env.DATABASE_SSL_MODE,
      // DATABASE_SSL_CA_FILE's value is the file's text (pemFile).
      ...(env.DATABASE_SSL_CA_FILE !== undefined && { ca: env.DATABASE_SSL_CA_FILE }),
    },
  }),
  ...(env.DATABASE_ADMIN_URL !== undefined && { adminUrl: env.DATABASE_ADMIN_URL }),
});
export const eventBusConfig = (env: Env<typeof eventBusEnv>, clientId: string): EventBusConfig =>
  env.EVENT_BUS === 'postgres' ? { driver: 'postgres' } : { driver: 'kafka', kafka: kafkaConfig(env, clientId) };
/** Kafka's settings (with EVENT_BUS=kafka, where eventBusEnvRules require the brokers). */
export function kafkaConfig(env: Env<typeof eventBusEnv>, clientId: string): KafkaConfig {
  return {
    // eventBusEnvRules: KAFKA_BROKERS is there with EVENT_BUS=kafka.
    brokers: env.KAFKA_BROKERS as string[],
    clientId,
    topicPrefix: env.KAFKA_TOPIC_PREFIX,
    replicationFactor: env.KAFKA_REPLICATION_FACTOR,
    minInsyncReplicas: env.KAFKA_MIN_INSYNC_REPLICAS,
    ...(env.KAFKA_TLS && { tls: env.KAFKA_TLS_CA_FILE === undefined ? {} : { ca: env.KAFKA_TLS_CA_FILE } }),
    // eventBusEnvRules: a password comes with every user.
    ...(env.KAFKA_SASL_USERNAME !== undefined && {
      sasl: {
        mechanism: env.KAFKA_SASL_MECHANISM,
        username: env.KAFKA_SASL_USERNAME,
        password: env.KAFKA_SASL_PASSWORD as string,
      },
    }),
  };
}
export const rateLimitConfig = (env: Env<typeof rateLimitEnv>): RateLimitConfig => ({
  limits: env.RATE_LIMITS,
  syncMs: env.RATE_LIMIT_SYNC_MS,
});
export const readPoolConfig = (env: Env<typeof readPoolEnv>): ReadPoolConfig => ({
  poolSize: env.READ_POOL_SIZE,
  statementTimeoutMs: env.READ_STATEMENT_TIMEOUT_MS,
  scanConcurrency: env.READ_SCAN_CONCURRENCY,
  queueTimeoutMs: env.READ_QUEUE_TIMEOUT_MS,
});
export const outboxConfig = (env: Env<typeof outboxEnv>): OutboxConfig => ({
  retentionSeconds: env.OUTBOX_RETENTION_SECONDS,
});

// storageEnvRules: each kind's required settings are there.
export const storageConfig = (env: Env<typeof storageEnv>): StorageConfig =>
  env.OBJECT_STORE === 'local'
    ? {
        driver: 'local',
        directory: env.LOCAL_STORE_DIRECTORY as string,
        publicBaseUrl: env.LOCAL_STORE_PUBLIC_URL as string,
        signingKey: env.LOCAL_STORE_SIGNING_KEY as string,
      }
    : {
        driver: 'minio',
        endpointUrl: env.MINIO_ENDPOINT_URL as string,
        publicEndpointUrl: env.MINIO_PUBLIC_ENDPOINT_URL ?? (env.MINIO_ENDPOINT_URL as string),
        accessKey: env.MINIO_ACCESS_KEY as string,
        secretKey: env.MINIO_SECRET_KEY as string,
        bucket: env.MINIO_BUCKET,
        region: env.MINIO_REGION,
      };
export const serviceClientConfig = (env: Env<typeof serviceClientEnv>): ServiceClientConfig => ({
  tokenUrl: env.AUTH_TOKEN_URL,
  clientId: env.SERVICE_CLIENT_ID,
  clientSecret: env.SERVICE_CLIENT_SECRET,
});
export const authConfig = (env: Env<typeof authEnv>): AuthConfig => ({
  jwksUrl: env.AUTH_JWKS_URL,
  issuer: env.AUTH_ISSUER,
  acceptedIssuers: env.AUTH_ACCEPTED_ISSUERS.filter((accepted) => accepted !== env.AUTH_ISSUER),
  audience: env.AUTH_AUDIENCE,
  revocationsUrl: env.AUTH_REVOCATIONS_URL ?? new URL(REVOCATIONS_PATH, env.AUTH_JWKS_URL).href,
  revocationsRefreshMs: env.AUTH_REVOCATIONS_REFRESH_MS,
});
