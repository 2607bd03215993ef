import {
  type DynamicModule,
  Global,
  Inject,
  Injectable,
  type ModuleMetadata,
  Module,
  type OnModuleInit,
  type Type,
} from '@nestjs/common';
import { APP_GUARD, HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthConfig } from '../config/config';
import { AccessTokenVerifier, JwksAccessTokenVerifier } from './access-token.verifier';
import { CachingAccessTokenVerifier } from './caching-access-token.verifier';
import type { Principal } from './authentication.errors';
import { BearerAuthenticator } from './bearer.strategy';
import { PolledRevocations, RevocationCheckingVerifier, Revocations } from './revocations';
import { ScopeGuard } from './scope.guard';
import { MetricsRegistry } from '../metrics/metrics';

export * from './access-token.verifier';
export * from './authentication.errors';
export * from './bearer.strategy';
export * from './revocations';
export * from './scope.guard';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook for every non-public request; null on public paths. */
    principal: Principal | null;
  }
}

/** The caller's client id on a route that requires a token (the authentication hook has set the principal). */
export function principalClientId(request: FastifyRequest): string {
  if (request.principal === null) throw new Error(`${request.url} was reached without authentication`);
  return request.principal.clientId;
}

/** Paths every service serves without a token. */
const ALWAYS_PUBLIC = ['/health/live', '/health/ready', '/metrics'];

export interface AuthenticationOptions {
  config: Readonly<AuthConfig>;
  /** Further paths served without a token (the auth service's token endpoint, JWKS and metadata). */
  publicPaths?: readonly string[];
  /**
   * Replaces the default verifier (the service's JWKS, with verified tokens cached until their expiry but at most a
   * minute: CachingAccessTokenVerifier); the auth service verifies against its own key store instead of fetching its
   * own JWKS over HTTP. Its dependencies come from `imports`.
   */
  verifier?: Type<AccessTokenVerifier>;
  /**
   * Replaces the default source of revocations (the auth service's list, polled: PolledRevocations); the auth
   * service reads its own store. The instance is one a module of `imports` exports (shared with whoever else uses
   * it). Every verified token is checked against it, whichever verifier.
   */
  revocations?: Type<Revocations>;
  imports?: ModuleMetadata['imports'];
}

const AUTHENTICATION_OPTIONS = Symbol('AUTHENTICATION_OPTIONS');
/** The verifier of signatures and claims, before revocations are applied. */
const SIGNATURE_VERIFIER = Symbol('SIGNATURE_VERIFIER');

@Injectable()
class AuthenticationHook implements OnModuleInit {
  private readonly publicPaths: ReadonlySet<string>;
  private readonly authenticator: BearerAuthenticator;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    verifier: AccessTokenVerifier,
    @Inject(AUTHENTICATION_OPTIONS) options: AuthenticationOptions,
  ) {
    this.publicPaths = new Set([...ALWAYS_PUBLIC, ...(options.publicPaths ?? [])]);
    this.authenticator = new BearerAuthenticator(verifier);
  }

  /**
   * Authenticates before routing: every request but the public ones must carry a valid token, so an
   * unauthenticated caller learns nothing about which paths exist. Scopes are checked after routing by
   * ScopeGuard, which knows the route's @RequireScope.
   */
  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.decorateRequest('principal', null);
    fastify.addHook('onRequest', async (request: FastifyRequest) => {
      const path = request.url.split('?', 1)[0] ?? '';
      if (this.publicPaths.has(path)) return;
      request.principal = await this.authenticator.authenticate(request.headers.authorization);
    });
  }
}

/**
 * Requires a valid bearer token on every non-public path of the service (before routing), and the scope each
 * route declares with @RequireScope (after routing; routes without it are closed).
 */
@Global()
@Module({})
export class AuthenticationModule {
  static forRoot(options: AuthenticationOptions): DynamicModule {
    return {
      module: AuthenticationModule,
      imports: [...(options.imports ?? [])],
      providers: [
        { provide: AUTHENTICATION_OPTIONS, useValue: options },
        options.verifier
          ? { provide: SIGNATURE_VERIFIER, useClass: options.verifier }
          : {
              provide: SIGNATURE_VERIFIER,
              useFactory: () => new CachingAccessTokenVerifier(new JwksAccessTokenVerifier(options.config)),
            },
        options.revocations
          ? { provide: Revocations, useExisting: options.revocations }
          : {
              provide: Revocations,
              useFactory: (metrics?: MetricsRegistry) => new PolledRevocations(options.config, metrics?.registry),
              inject: [{ token: MetricsRegistry, optional: true }],
            },
        {
          provide: AccessTokenVerifier,
          useFactory: (inner: AccessTokenVerifier, revocations: Revocations) =>
            new RevocationCheckingVerifier(inner, revocations),
          inject: [SIGNATURE_VERIFIER, Revocations],
        },
        AuthenticationHook,
        { provide: APP_GUARD, useClass: ScopeGuard },
      ],
      exports: [AccessTokenVerifier],
    };
  }
}
