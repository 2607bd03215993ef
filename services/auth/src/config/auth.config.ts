import { z } from 'zod';
import {
  authConfig,
  authEnv,
  databaseConfig,
  databaseEnv,
  databaseEnvRules,
  encryptionKey,
  httpConfig,
  httpEnv,
  eventBusConfig,
  eventBusEnv,
  eventBusEnvRules,
  loadConfig,
  outboxConfig,
  outboxEnv,
} from '@lx/platform';

/** The longest TOKEN_TTL_SECONDS accepted (a day): how long a revocation must stay listed. */
export const MAX_TOKEN_TTL_SECONDS = 86_400;

const tokensEnv = {
  /** Seals private signing keys and webhook secrets at rest; auth only. */
  AUTH_ENCRYPTION_KEY: encryptionKey,
  /** Seals webhook secrets into CLIENT_* events; auth and the webhook dispatcher. */
  WEBHOOK_SECRET_TRANSPORT_KEY: encryptionKey,
  TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(MAX_TOKEN_TTL_SECONDS).default(3_600),
  TOKEN_SIGNING_ALGORITHM: z.enum(['ES256', 'EdDSA']).default('ES256'),
  TOKEN_FAILURE_LIMIT: z.coerce.number().int().min(1).max(1_000).default(10),
  TOKEN_FAILURE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  TOKEN_SOURCE_FAILURE_LIMIT: z.coerce.number().int().min(1).max(100_000).default(100),
  TOKEN_KNOWN_SOURCE_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  ADMIN_BOOTSTRAP_CLIENT_ID: z.string().uuid().optional(),
  ADMIN_BOOTSTRAP_CLIENT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  SERVICE_BOOTSTRAP_CLIENT_ID: z.string().uuid().optional(),
  SERVICE_BOOTSTRAP_CLIENT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
};

/** Both variables of a pair, or neither. */
const PAIRS = [
  ['ADMIN_BOOTSTRAP_CLIENT_ID', 'ADMIN_BOOTSTRAP_CLIENT_SECRET'],
  ['SERVICE_BOOTSTRAP_CLIENT_ID', 'SERVICE_BOOTSTRAP_CLIENT_SECRET'],
] as const;

const bootstrapClient = (clientId: string | undefined, clientSecret: string | undefined) =>
  clientId !== undefined && clientSecret !== undefined ? { clientId, clientSecret } : undefined;

const schema = z
  .object({ ...httpEnv(3001), ...databaseEnv, ...authEnv, ...eventBusEnv, ...outboxEnv, ...tokensEnv })
  .superRefine((env, ctx) => {
    // One key, one purpose: the transport key is shared with the webhook dispatcher, the at-rest key is not.
    const transportKey = Buffer.from(env.WEBHOOK_SECRET_TRANSPORT_KEY, 'base64');
    if (transportKey.length === 32 && transportKey.equals(Buffer.from(env.AUTH_ENCRYPTION_KEY, 'base64'))) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['WEBHOOK_SECRET_TRANSPORT_KEY'],
        message: 'must differ from AUTH_ENCRYPTION_KEY (the webhook dispatcher holds this key, never that one)',
      });
    }
    for (const [id, secret] of PAIRS) {
      if ((env[id] === undefined) !== (env[secret] === undefined)) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: [secret],
          message: `${id} and ${secret} must be set together`,
        });
      }
    }
  })
  .superRefine(eventBusEnvRules)
  .superRefine(databaseEnvRules)
  .transform((env) => ({
    http: httpConfig(env),
    auth: authConfig(env),
    database: databaseConfig(env, 'auth'),
    eventBus: eventBusConfig(env, 'auth'),
    outbox: outboxConfig(env),
    tokens: {
      ttlSeconds: env.TOKEN_TTL_SECONDS,
      signingAlgorithm: env.TOKEN_SIGNING_ALGORITHM,
      /**
       * Failed client authentications per client id (from sources it has not authenticated from), and per client id
       * and known source, in a window before the token endpoint answers 429.
       */
      failureLimit: env.TOKEN_FAILURE_LIMIT,
      /** Failed client authentications per source address in a window, whatever the client ids. */
      sourceFailureLimit: env.TOKEN_SOURCE_FAILURE_LIMIT,
      failureWindowSeconds: env.TOKEN_FAILURE_WINDOW_SECONDS,
      /** How long a source a client authenticated from stays known (exempt from the others' failures). */
      knownSourceDays: env.TOKEN_KNOWN_SOURCE_DAYS,
    },
    /** Base64 of the 32-byte key that seals secrets at rest. */
    encryptionKeyBase64: env.AUTH_ENCRYPTION_KEY,
    /** Base64 of the 32-byte key that seals webhook secrets into CLIENT_* events. */
    webhookSecretTransportKeyBase64: env.WEBHOOK_SECRET_TRANSPORT_KEY,
    bootstrapAdmin: bootstrapClient(env.ADMIN_BOOTSTRAP_CLIENT_ID, env.ADMIN_BOOTSTRAP_CLIENT_SECRET),
    /** The internal services' client (the export worker's), created at start when no client has its id. */
    bootstrapService: bootstrapClient(env.SERVICE_BOOTSTRAP_CLIENT_ID, env.SERVICE_BOOTSTRAP_CLIENT_SECRET),
  }));

/** The auth service's whole configuration, validated once at boot. */
export type AuthConfig = ReturnType<typeof loadAuthConfig>;

/** Injection token of the frozen AuthConfig. */
export const AUTH_CONFIG = Symbol('AUTH_CONFIG');

export function loadAuthConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig('auth', schema, env);
}
