/**
 * Token issuance and verification rates, each beside a baseline measured in the same run, on loopback:
 *
 *   npx tsc -p bench/auth/tsconfig.json && npx tsc-alias -p bench/auth/tsconfig.json && \
 *     node dist/bench/auth/bench/auth/token-bench.js
 *
 * Needs the local infrastructure (npm run infra:up; endpoints from .infra/env). Starts the auth service and a
 * resource service (AuthenticationModule against auth's JWKS, one route requiring locations:read) in this process
 * and drives them with autocannon in a child process. BENCH_SECONDS (default 5) bounds each measurement;
 * TOKEN_SIGNING_ALGORITHM (ES256 or EdDSA) picks the key type. Auth publishes the bench client's CLIENT_REGISTERED to
 * topics of the run's own (a topic prefix, deleted at the end), not to a running stack's.
 */
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createLocalJWKSet, jwtVerify, SignJWT } from 'jose';
import { Client } from 'pg';
import { AuthenticationModule, createServiceApp, HealthModule, MetricsModule, RequireScope } from '@lx/platform';
// The file, not @lx/testing's index: that also loads jest-only helpers.
import { loadInfraEnv, requireEnv } from '../../libs/testing/src/infra-env';
import { createPrivateTopics } from '../../libs/testing/src/kafka-topics';
import { AppModule } from '../../services/auth/src/app.module';
import { RegisterClientHandler } from '../../services/auth/src/clients/commands/register-client/register-client.handler';
import { SecretHasher } from '../../services/auth/src/common/secret-hasher';
import { loadAuthConfig } from '../../services/auth/src/config/auth.config';
import { SigningKeyStore } from '../../services/auth/src/keys/infrastructure/signing-key.store';

const run = promisify(execFile);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 8;

interface Row {
  measurement: string;
  rate: number;
  unit: string;
  p50?: number;
  p99?: number;
  note: string;
}

interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}

async function autocannon(url: string, args: string[]): Promise<AutocannonResult> {
  const bin = require.resolve('autocannon/autocannon.js');
  const { stdout } = await run(
    process.execPath,
    [bin, '-j', '-c', String(CONNECTIONS), '-d', String(SECONDS), ...args, url],
    {
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const result = JSON.parse(stdout) as AutocannonResult;
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx replies, ${result.errors} errors`);
  }
  return result;
}

/** Runs `operation` in `parallel` loops for SECONDS; operations per second. */
async function loop(parallel: number, operation: () => Promise<unknown>): Promise<number> {
  const deadline = Date.now() + SECONDS * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (Date.now() < deadline) {
        await operation();
        done += 1;
      }
    }),
  );
  return done / SECONDS;
}

@Controller('probe')
class ProbeController {
  @Get()
  @RequireScope('locations:read')
  probe() {
    return { ok: true };
  }
}

async function main(): Promise<void> {
  // Run from the repository root: the compiled file's own location says nothing about where .infra is.
  loadInfraEnv(join(process.env.LX_STATE_DIR ?? join(process.cwd(), '.infra'), 'env'));
  const schema = `auth_bench_${Date.now().toString(36)}`;
  const topics = await createPrivateTopics(requireEnv('KAFKA_BROKERS').split(','), 'lxbench');
  const env = {
    ...process.env,
    ...topics.env,
    DATABASE_SCHEMA: schema,
    AUTH_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_SECRET_TRANSPORT_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
    // The bench hammers one client id with right secrets only; the throttle never counts them.
    TOKEN_FAILURE_LIMIT: '1000',
  };
  const config = loadAuthConfig(env);
  const auth = await createServiceApp('auth', AppModule.register(config), config.http);
  await auth.listen(0, '127.0.0.1');
  const authUrl = `http://127.0.0.1:${(auth.getHttpServer().address() as AddressInfo).port}`;
  let resource: NestFastifyApplication | undefined;

  try {
    const rsp = await auth.get(RegisterClientHandler).execute({ name: 'bench', kind: 'RSP' });
    const body = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: rsp.clientId,
      client_secret: rsp.clientSecret,
    }).toString();
    const tokenReply = await fetch(`${authUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    const { access_token: token } = (await tokenReply.json()) as { access_token: string };

    @Module({
      imports: [
        MetricsModule,
        HealthModule.forRoot([]),
        AuthenticationModule.forRoot({
          config: {
            ...config.auth,
            jwksUrl: `${authUrl}/.well-known/jwks.json`,
            revocationsUrl: `${authUrl}/internal/revocations`,
          },
        }),
      ],
      controllers: [ProbeController],
    })
    class ResourceModule {}
    resource = await createServiceApp('resource', ResourceModule, { ...config.http, logLevel: 'warn' });
    await resource.listen(0, '127.0.0.1');
    const resourceUrl = `http://127.0.0.1:${(resource.getHttpServer().address() as AddressInfo).port}`;

    const rows: Row[] = [];
    const issued = await autocannon(`${authUrl}/oauth/token`, [
      '-m',
      'POST',
      '-H',
      'content-type=application/x-www-form-urlencoded',
      '-b',
      body,
    ]);
    rows.push({
      measurement: 'POST /oauth/token (auth service, HTTP)',
      rate: issued.requests.average,
      unit: 'tokens/s',
      p50: issued.latency.p50,
      p99: issued.latency.p99,
      note: `${CONNECTIONS} connections`,
    });

    const hasher = new SecretHasher();
    const stored = await hasher.hash(rsp.clientSecret);
    const signer = await auth.get(SigningKeyStore).signer();
    const rawIssue = await loop(CONNECTIONS, async () => {
      await hasher.verify(rsp.clientSecret, stored);
      await new SignJWT({ scope: 'locations:read' })
        .setProtectedHeader({ alg: signer.algorithm, kid: signer.kid })
        .setIssuer(config.auth.issuer)
        .setAudience(config.auth.audience)
        .setSubject(rsp.clientId)
        .setJti(randomUUID())
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(signer.privateKey);
    });
    rows.push({
      measurement: 'baseline: scrypt verify + SignJWT, in-process',
      rate: rawIssue,
      unit: 'tokens/s',
      note: `${CONNECTIONS} parallel loops, same scrypt parameters`,
    });

    const verified = await autocannon(`${resourceUrl}/probe`, ['-H', `authorization=Bearer ${token}`]);
    rows.push({
      measurement: 'GET guarded route (bearer strategy + scope guard, HTTP)',
      rate: verified.requests.average,
      unit: 'verifications/s',
      p50: verified.latency.p50,
      p99: verified.latency.p99,
      note: `${CONNECTIONS} connections, JWKS cached`,
    });

    const bare = await autocannon(`${resourceUrl}/health/live`, []);
    rows.push({
      measurement: 'baseline: GET /health/live of the same app (no token)',
      rate: bare.requests.average,
      unit: 'requests/s',
      p50: bare.latency.p50,
      p99: bare.latency.p99,
      note: `${CONNECTIONS} connections`,
    });

    const jwks = createLocalJWKSet((await (await fetch(`${authUrl}/.well-known/jwks.json`)).json()) as never);
    const rawVerify = await loop(CONNECTIONS, () =>
      jwtVerify(token, jwks, { issuer: config.auth.issuer, audience: config.auth.audience }),
    );
    rows.push({
      measurement: 'baseline: jose jwtVerify, in-process',
      rate: rawVerify,
      unit: 'verifications/s',
      note: `${CONNECTIONS} parallel loops, local key set`,
    });

    print(rows, signer.algorithm);
  } finally {
    await resource?.close();
    await auth.close();
    const db = new Client({ connectionString: requireEnv('DATABASE_URL') });
    await db.connect();
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.end();
    await topics.remove();
  }
}

function print(rows: Row[], algorithm: string): void {
  const lines = [
    `Auth token benchmark: ${algorithm}, ${SECONDS} s per measurement, loopback, node ${process.version}`,
    '',
    '| measurement | rate | p50 ms | p99 ms | note |',
    '|---|---:|---:|---:|---|',
    ...rows.map(
      (row) =>
        `| ${row.measurement} | ${Math.round(row.rate).toLocaleString('en')} ${row.unit} | ${row.p50 ?? ''} | ${row.p99 ?? ''} | ${row.note} |`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
