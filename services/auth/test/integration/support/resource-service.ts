import { Controller, Get, Module, Req } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest, LightMyRequestResponse } from 'fastify';
import { AuthenticationModule, createServiceApp, MetricsModule, RequireScope } from '@lx/platform';
import type { AuthUnderTest } from './auth-under-test';

/** Test-only routes of "another service": what every service's controllers declare. */
@Controller('probe')
class ProbeController {
  @Get('read')
  @RequireScope('locations:read')
  read(@Req() request: FastifyRequest) {
    return { clientId: request.principal?.clientId, scopes: request.principal?.scopes };
  }

  @Get('write')
  @RequireScope('locations:write')
  write() {
    return { written: true };
  }
}

/** How often the resource service polls auth's revocation list in these tests. */
export const REVOCATIONS_REFRESH_MS = 100;

/**
 * "Another service" in front of `auth`: AuthenticationModule from @lx/platform exactly as every service's AppModule
 * uses it (tokens verified locally against auth's JWKS, revocations polled from auth), over /probe/read and
 * /probe/write. `call` injects a GET.
 */
export interface ResourceService {
  app: NestFastifyApplication;
  /** GET `path`, with `authorization` as the Authorization header when given. */
  call(path: string, authorization?: string): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function startResourceService(
  auth: AuthUnderTest,
  acceptedIssuers: string[] = [],
): Promise<ResourceService> {
  @Module({
    imports: [
      MetricsModule,
      AuthenticationModule.forRoot({
        config: {
          jwksUrl: `${auth.url}/.well-known/jwks.json`,
          issuer: auth.issuer,
          acceptedIssuers,
          audience: 'location-exchange-api',
          revocationsUrl: `${auth.url}/internal/revocations`,
          revocationsRefreshMs: REVOCATIONS_REFRESH_MS,
        },
      }),
    ],
    controllers: [ProbeController],
  })
  class ResourceServiceModule {}

  const app = await createServiceApp('resource-service', ResourceServiceModule, {
    host: '127.0.0.1',
    port: 1,
    bodyLimitBytes: 1024,
    requestTimeoutMs: 300_000,
    logLevel: 'warn',
  });
  await app.init();
  const fastify = app.getHttpAdapter().getInstance();
  await fastify.ready();
  return {
    app,
    call: (path, authorization) =>
      fastify.inject({ method: 'GET', url: path, headers: authorization === undefined ? {} : { authorization } }),
    close: () => app.close(),
  };
}
