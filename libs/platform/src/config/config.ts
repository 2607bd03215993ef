import { z } from 'zod';

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
      // zod's messages may quote the received value ("…, received 'x'"); cut it off.
      return isMissing ? `${name} is required` : `${name}: ${issue.message.replace(/, received .*$/, '')}`;
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
    .refine((value) => protocols.includes(new URL(value).protocol), {
      message: `must be a ${protocols.join(' or ')} URL`,
    });
const boolean = z.enum(['true', 'false']).transform((value) => value === 'true');

/** HTTP listener settings shared by every service; each service has its own default port. */
export const httpEnv = (defaultPort: number) => ({
  HTTP_HOST: z.string().min(1).default('0.0.0.0'),
  HTTP_PORT: port.default(defaultPort),
  HTTP_BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1_048_576),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/** PostgreSQL settings; each service owns one schema in the shared database. */
export const databaseEnv = {
  DATABASE_URL: url(['postgres:', 'postgresql:']),
  DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier')
    .optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  DATABASE_MIGRATE_ON_BOOT: boolean.default('true'),
};

/** Kafka settings shared by the services that use the event bus. */
export const kafkaEnv = {
  KAFKA_BROKERS: z
    .string()
    .min(1)
    .transform((value) => value.split(',').map((broker) => broker.trim()))
    .refine((brokers) => brokers.every((broker) => /^[^\s:]+:\d+$/.test(broker)), {
      message: 'must be a comma-separated list of host:port',
    }),
};

/** Object storage (MinIO / S3) settings. */
export const storageEnv = {
  MINIO_ENDPOINT_URL: url(['http:', 'https:']),
  MINIO_PUBLIC_ENDPOINT_URL: url(['http:', 'https:']).optional(),
  MINIO_ACCESS_KEY: z.string().min(1),
  MINIO_SECRET_KEY: z.string().min(1),
  MINIO_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a valid bucket name')
    .default('location-exports'),
  MINIO_REGION: z.string().min(1).default('us-east-1'),
};

/** Where services find the keys that sign access tokens, and what the tokens must say. */
export const authEnv = {
  AUTH_JWKS_URL: url(['http:', 'https:']).default('http://127.0.0.1:3001/.well-known/jwks.json'),
  AUTH_ISSUER: z.string().min(1).default('location-exchange'),
  AUTH_AUDIENCE: z.string().min(1).default('location-exchange-api'),
};

type Env<T extends z.ZodRawShape> = z.output<z.ZodObject<T>>;

type HttpEnv = Env<ReturnType<typeof httpEnv>>;

export interface HttpConfig {
  host: string;
  port: number;
  bodyLimitBytes: number;
  logLevel: HttpEnv['LOG_LEVEL'];
}
export interface DatabaseConfig {
  url: string;
  schema: string;
  poolSize: number;
  migrateOnBoot: boolean;
}
export interface KafkaConfig {
  brokers: readonly string[];
  clientId: string;
}
export interface StorageConfig {
  endpointUrl: string;
  publicEndpointUrl: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region: string;
}

export interface AuthConfig {
  jwksUrl: string;
  issuer: string;
  audience: string;
}

export const httpConfig = (env: HttpEnv): HttpConfig => ({
  host: env.HTTP_HOST,
  port: env.HTTP_PORT,
  bodyLimitBytes: env.HTTP_BODY_LIMIT_BYTES,
  logLevel: env.LOG_LEVEL,
});
/** `schema` is the service's own schema name; DATABASE_SCHEMA overrides it (tests isolate themselves that way). */
export const databaseConfig = (env: Env<typeof databaseEnv>, schema: string): DatabaseConfig => ({
  url: env.DATABASE_URL,
  schema: env.DATABASE_SCHEMA ?? schema,
  poolSize: env.DATABASE_POOL_SIZE,
  migrateOnBoot: env.DATABASE_MIGRATE_ON_BOOT,
});
export const kafkaConfig = (env: Env<typeof kafkaEnv>, clientId: string): KafkaConfig => ({
  brokers: env.KAFKA_BROKERS,
  clientId,
});
export const storageConfig = (env: Env<typeof storageEnv>): StorageConfig => ({
  endpointUrl: env.MINIO_ENDPOINT_URL,
  publicEndpointUrl: env.MINIO_PUBLIC_ENDPOINT_URL ?? env.MINIO_ENDPOINT_URL,
  accessKey: env.MINIO_ACCESS_KEY,
  secretKey: env.MINIO_SECRET_KEY,
  bucket: env.MINIO_BUCKET,
  region: env.MINIO_REGION,
});
export const authConfig = (env: Env<typeof authEnv>): AuthConfig => ({
  jwksUrl: env.AUTH_JWKS_URL,
  issuer: env.AUTH_ISSUER,
  audience: env.AUTH_AUDIENCE,
});
