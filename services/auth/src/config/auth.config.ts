import { z } from 'zod';
import {
  authConfig,
  authEnv,
  databaseConfig,
  databaseEnv,
  encryptionKey,
  httpConfig,
  httpEnv,
  kafkaConfig,
  kafkaEnv,
  loadConfig,
} from '@lx/platform';

const tokensEnv = {
  /** Seals private signing keys and webhook secrets at rest; auth only. */
  AUTH_ENCRYPTION_KEY: encryptionKey,
  /** Seals webhook secrets into CLIENT_* events; auth and the webhook dispatcher. */
  WEBHOOK_SECRET_TRANSPORT_KEY: encryptionKey,
  TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3_600),
  TOKEN_SIGNING_ALGORITHM: z.enum(['ES256', 'EdDSA']).default('ES256'),
  TOKEN_FAILURE_LIMIT: z.coerce.number().int().min(1).max(1_000).default(10),
  TOKEN_FAILURE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  ADMIN_BOOTSTRAP_CLIENT_ID: z.string().uuid().optional(),
  ADMIN_BOOTSTRAP_CLIENT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
};

const schema = z
  .object({ ...httpEnv(3001), ...databaseEnv, ...authEnv, ...kafkaEnv, ...tokensEnv })
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
    if ((env.ADMIN_BOOTSTRAP_CLIENT_ID === undefined) !== (env.ADMIN_BOOTSTRAP_CLIENT_SECRET === undefined)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['ADMIN_BOOTSTRAP_CLIENT_SECRET'],
        message: 'ADMIN_BOOTSTRAP_CLIENT_ID and ADMIN_BOOTSTRAP_CLIENT_SECRET must be set together',
      });
    }
  })
  .transform((env) => ({
    http: httpConfig(env),
    auth: authConfig(env),
    database: databaseConfig(env, 'auth'),
    kafka: kafkaConfig(env, 'auth'),
    tokens: {
      ttlSeconds: env.TOKEN_TTL_SECONDS,
      signingAlgorithm: env.TOKEN_SIGNING_ALGORITHM,
      /** Failed client authentications per client id and window before the token endpoint answers 429. */
      failureLimit: env.TOKEN_FAILURE_LIMIT,
      failureWindowSeconds: env.TOKEN_FAILURE_WINDOW_SECONDS,
    },
    /** Base64 of the 32-byte key that seals secrets at rest. */
    encryptionKeyBase64: env.AUTH_ENCRYPTION_KEY,
    /** Base64 of the 32-byte key that seals webhook secrets into CLIENT_* events. */
    webhookSecretTransportKeyBase64: env.WEBHOOK_SECRET_TRANSPORT_KEY,
    bootstrapAdmin:
      env.ADMIN_BOOTSTRAP_CLIENT_ID !== undefined && env.ADMIN_BOOTSTRAP_CLIENT_SECRET !== undefined
        ? { clientId: env.ADMIN_BOOTSTRAP_CLIENT_ID, clientSecret: env.ADMIN_BOOTSTRAP_CLIENT_SECRET }
        : undefined,
  }));

/** The auth service's whole configuration, validated once at boot. */
export type AuthConfig = ReturnType<typeof loadAuthConfig>;

/** Injection token of the frozen AuthConfig. */
export const AUTH_CONFIG = Symbol('AUTH_CONFIG');

export function loadAuthConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig('auth', schema, env);
}
