import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import type { RegisteredClient, RegisterClientRequest, TokenResponse } from '@lx/contracts';
import { createServiceApp } from '@lx/platform';
import { requireEnv, uniqueSuffix } from '@lx/testing';
import { AppModule } from '../../../src/app.module';
import { loadAuthConfig } from '../../../src/config/auth.config';

/** An auth service on 127.0.0.1 (random port) with its own schema and bootstrap admin client. */
export interface AuthUnderTest {
  app: NestFastifyApplication;
  url: string;
  /** `iss` of its tokens and the issuer of its metadata: AUTH_ISSUER in canonical form (not where it listens). */
  issuer: string;
  /** The environment it was started with; reuse it (e.g. for the CLI) to reach the same schema and key. */
  env: NodeJS.ProcessEnv;
  admin: { clientId: string; clientSecret: string };
  token(clientId: string, clientSecret: string, scope?: string): Promise<TokenResponse>;
  adminToken(): Promise<string>;
  /** POST /admin/clients as the bootstrap admin. */
  register(body: RegisterClientRequest): Promise<RegisteredClient>;
  close(): Promise<void>;
}

export const form = (params: Record<string, string>) => new URLSearchParams(params).toString();
export const FORM_TYPE = 'application/x-www-form-urlencoded';
export const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

export async function dropSchema(schema: string): Promise<void> {
  const client = new Client({ connectionString: requireEnv('DATABASE_URL') });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

export async function startAuth(overrides: Record<string, string> = {}): Promise<AuthUnderTest> {
  const admin = { clientId: randomUUID(), clientSecret: randomBytes(32).toString('base64url') };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_SCHEMA: `auth_it_${uniqueSuffix()}`,
    AUTH_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_SECRET_TRANSPORT_KEY: randomBytes(32).toString('base64'),
    ADMIN_BOOTSTRAP_CLIENT_ID: admin.clientId,
    ADMIN_BOOTSTRAP_CLIENT_SECRET: admin.clientSecret,
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: '1',
    LOG_LEVEL: 'warn',
    ...overrides,
  };
  const config = loadAuthConfig(env);
  const app = await createServiceApp('auth', AppModule.register(config), config.http);
  await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;

  const token = async (clientId: string, clientSecret: string, scope?: string): Promise<TokenResponse> => {
    const response = await fetch(`${url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': FORM_TYPE },
      body: form({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
        ...(scope === undefined ? {} : { scope }),
      }),
    });
    if (response.status !== 200) throw new Error(`token request answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as TokenResponse;
  };
  const adminToken = async () => (await token(admin.clientId, admin.clientSecret)).access_token;

  return {
    app,
    url,
    issuer: config.auth.issuer,
    env,
    admin,
    token,
    adminToken,
    register: async (body) => {
      const response = await fetch(`${url}/admin/clients`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${await adminToken()}` },
        body: JSON.stringify(body),
      });
      if (response.status !== 201)
        throw new Error(`registration answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as RegisteredClient;
    },
    close: async () => {
      await app.close();
      await dropSchema(env.DATABASE_SCHEMA!);
    },
  };
}
