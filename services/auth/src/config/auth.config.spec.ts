import { randomBytes } from 'node:crypto';
import { configProblems } from '@lx/testing';
import { loadAuthConfig } from './auth.config';

const base = {
  DATABASE_URL: 'postgresql://localhost/lx',
  KAFKA_BROKERS: '127.0.0.1:9092',
  AUTH_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  WEBHOOK_SECRET_TRANSPORT_KEY: randomBytes(32).toString('base64'),
};

const problemsOf = (env: NodeJS.ProcessEnv) => configProblems(loadAuthConfig, env);

describe('auth configuration', () => {
  it('given the required settings, when loaded, then token defaults apply and no admin is bootstrapped', () => {
    const config = loadAuthConfig(base);
    expect(config.tokens).toEqual({
      ttlSeconds: 3600,
      signingAlgorithm: 'ES256',
      failureLimit: 10,
      sourceFailureLimit: 100,
      failureWindowSeconds: 300,
      knownSourceDays: 30,
    });
    expect(config.bootstrapAdmin).toBeUndefined();
  });

  it('given no encryption key, when loaded, then it is required (no default for a secret)', () => {
    expect(problemsOf({ ...base, AUTH_ENCRYPTION_KEY: undefined })).toContain('AUTH_ENCRYPTION_KEY is required');
  });

  it('given an encryption key of the wrong size, when loaded, then it is named without its value', () => {
    const key = randomBytes(16).toString('base64');
    const problems = problemsOf({ ...base, AUTH_ENCRYPTION_KEY: key });
    expect(problems).toEqual(['AUTH_ENCRYPTION_KEY: must be 32 bytes, base64-encoded']);
    expect(problems.join()).not.toContain(key);
  });

  it('given the required settings, when loaded, then both keys are kept apart', () => {
    const config = loadAuthConfig(base);
    expect(config.encryptionKeyBase64).toBe(base.AUTH_ENCRYPTION_KEY);
    expect(config.webhookSecretTransportKeyBase64).toBe(base.WEBHOOK_SECRET_TRANSPORT_KEY);
  });

  it('given no webhook secret transport key, when loaded, then it is required (no default for a secret)', () => {
    expect(problemsOf({ ...base, WEBHOOK_SECRET_TRANSPORT_KEY: undefined })).toContain(
      'WEBHOOK_SECRET_TRANSPORT_KEY is required',
    );
  });

  it('given a transport key of the wrong size, when loaded, then it is named without its value', () => {
    const key = randomBytes(31).toString('base64');
    const problems = problemsOf({ ...base, WEBHOOK_SECRET_TRANSPORT_KEY: key });
    expect(problems).toEqual(['WEBHOOK_SECRET_TRANSPORT_KEY: must be 32 bytes, base64-encoded']);
    expect(problems.join()).not.toContain(key);
  });

  it('given the transport key equal to the encryption key, when loaded, then it is refused by name, without the value', () => {
    const problems = problemsOf({ ...base, WEBHOOK_SECRET_TRANSPORT_KEY: base.AUTH_ENCRYPTION_KEY });
    expect(problems).toEqual([
      'WEBHOOK_SECRET_TRANSPORT_KEY: must differ from AUTH_ENCRYPTION_KEY (the webhook dispatcher holds this key, never that one)',
    ]);
    expect(problems.join()).not.toContain(base.AUTH_ENCRYPTION_KEY);
  });

  it('given only half of the bootstrap admin credentials, when loaded, then both are asked for', () => {
    expect(problemsOf({ ...base, ADMIN_BOOTSTRAP_CLIENT_ID: '3f6c2a9e-8d1b-4c1e-9a57-0b4b6a1d2c3e' })).toEqual([
      'ADMIN_BOOTSTRAP_CLIENT_SECRET: ADMIN_BOOTSTRAP_CLIENT_ID and ADMIN_BOOTSTRAP_CLIENT_SECRET must be set together',
    ]);
  });

  it('given only half of the bootstrap service client credentials, when loaded, then both are asked for', () => {
    expect(problemsOf({ ...base, SERVICE_BOOTSTRAP_CLIENT_SECRET: 'x'.repeat(32) })).toEqual([
      'SERVICE_BOOTSTRAP_CLIENT_SECRET: SERVICE_BOOTSTRAP_CLIENT_ID and SERVICE_BOOTSTRAP_CLIENT_SECRET must be set together',
    ]);
  });

  it('given both bootstrap clients, when loaded, then each is configured; given neither, then none', () => {
    const admin = { clientId: '3f6c2a9e-8d1b-4c1e-9a57-0b4b6a1d2c3e', clientSecret: 'a'.repeat(32) };
    const service = { clientId: '5d7c1a0e-2b7f-4f59-9a0e-4c0b1d2e3f40', clientSecret: 's'.repeat(32) };
    const config = loadAuthConfig({
      ...base,
      ADMIN_BOOTSTRAP_CLIENT_ID: admin.clientId,
      ADMIN_BOOTSTRAP_CLIENT_SECRET: admin.clientSecret,
      SERVICE_BOOTSTRAP_CLIENT_ID: service.clientId,
      SERVICE_BOOTSTRAP_CLIENT_SECRET: service.clientSecret,
    });
    expect(config).toMatchObject({ bootstrapAdmin: admin, bootstrapService: service });
    expect(loadAuthConfig(base)).toMatchObject({ bootstrapAdmin: undefined, bootstrapService: undefined });
  });

  it('given bootstrap credentials, when loaded, then the admin client id must be a UUID and the secret long', () => {
    expect(problemsOf({ ...base, ADMIN_BOOTSTRAP_CLIENT_ID: 'admin', ADMIN_BOOTSTRAP_CLIENT_SECRET: 'short' })).toEqual(
      ['ADMIN_BOOTSTRAP_CLIENT_ID: Invalid uuid', 'ADMIN_BOOTSTRAP_CLIENT_SECRET: must be at least 32 characters'],
    );
    expect(
      problemsOf({ ...base, SERVICE_BOOTSTRAP_CLIENT_ID: 'svc', SERVICE_BOOTSTRAP_CLIENT_SECRET: 'short' }),
    ).toEqual([
      'SERVICE_BOOTSTRAP_CLIENT_ID: Invalid uuid',
      'SERVICE_BOOTSTRAP_CLIENT_SECRET: must be at least 32 characters',
    ]);
  });

  it('given the public base URL and the former issuer name, when loaded, then tokens name the URL and both verify', () => {
    const config = loadAuthConfig({
      ...base,
      AUTH_ISSUER: 'https://api.example.com/',
      AUTH_ACCEPTED_ISSUERS: 'location-exchange',
    });
    expect(config.auth).toMatchObject({ issuer: 'https://api.example.com', acceptedIssuers: ['location-exchange'] });
  });

  it('given the former issuer name as AUTH_ISSUER, when loaded, then the service refuses to start', () => {
    expect(problemsOf({ ...base, AUTH_ISSUER: 'location-exchange' })).toEqual([
      expect.stringMatching(/^AUTH_ISSUER: must be an absolute http or https URL/),
    ]);
  });

  it('given token settings out of range, when loaded, then each is named', () => {
    expect(problemsOf({ ...base, TOKEN_TTL_SECONDS: '10', TOKEN_SIGNING_ALGORITHM: 'RS256' })).toHaveLength(2);
  });
});
