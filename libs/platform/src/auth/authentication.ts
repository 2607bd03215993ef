import {
  type DynamicModule,
  Global,
  Inject,
  Injectable,
  Module,
  type OnModuleInit,
  ServiceUnavailableException,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify } from 'jose';
import { DomainError } from '@lx/domain';
import type { AuthConfig } from '../config/config';

/** Who a verified access token speaks for. */
export interface Principal {
  clientId: string;
  scopes: readonly string[];
  tokenId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook for every non-public request. */
    principal: Principal | null;
  }
}

/** RFC 6750 error attribute for WWW-Authenticate; absent when the request carried no credentials. */
export type BearerError = 'invalid_request' | 'invalid_token';

/** Missing or invalid credentials: 401 UNAUTHORIZED with a WWW-Authenticate challenge. */
export class AuthenticationError extends DomainError {
  readonly code = 'UNAUTHORIZED' as const;

  constructor(
    message: string,
    readonly bearerError?: BearerError,
  ) {
    super(message);
  }
}

/** The WWW-Authenticate value for a 401 (RFC 6750 section 3). */
export function bearerChallenge(error: AuthenticationError): string {
  if (!error.bearerError) return 'Bearer realm="location-exchange"';
  const description = error.message.replace(/["\\]/g, "'");
  return `Bearer realm="location-exchange", error="${error.bearerError}", error_description="${description}"`;
}

/** Port: checks an access token and says whom it speaks for; throws AuthenticationError otherwise. */
export abstract class AccessTokenVerifier {
  abstract verify(token: string): Promise<Principal>;
}

const ALGORITHMS = ['ES256', 'EdDSA'];

function reasonOf(error: joseErrors.JOSEError): string {
  if (error instanceof joseErrors.JWTExpired) return 'The access token has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed)
    return `The access token's ${error.claim} claim is not accepted`;
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'The access token signature is invalid';
  if (error instanceof joseErrors.JWKSNoMatchingKey) return 'The access token was signed by an unknown key';
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'The access token algorithm is not accepted';
  return 'The access token is malformed or invalid';
}

/**
 * Verifies JWT access tokens locally against the auth service's JWKS. jose caches the key set and
 * refetches it when a token names an unknown key id, at most once per cooldown.
 */
export class JwksAccessTokenVerifier extends AccessTokenVerifier {
  private readonly keys: ReturnType<typeof createRemoteJWKSet>;

  constructor(private readonly config: Readonly<AuthConfig>) {
    super();
    this.keys = createRemoteJWKSet(new URL(config.jwksUrl), {
      cooldownDuration: 30_000,
      cacheMaxAge: 600_000,
      timeoutDuration: 2_000,
    });
  }

  async verify(token: string): Promise<Principal> {
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: this.config.issuer,
        audience: this.config.audience,
        algorithms: ALGORITHMS,
        requiredClaims: ['sub', 'exp', 'iat', 'jti'],
        clockTolerance: 5,
      });
      const scope = typeof payload.scope === 'string' ? payload.scope : '';
      return { clientId: payload.sub ?? '', scopes: scope.split(' ').filter(Boolean), tokenId: payload.jti ?? '' };
    } catch (error) {
      if (error instanceof joseErrors.JWKSTimeout || !(error instanceof joseErrors.JOSEError)) {
        // The key set could not be fetched: the token is not known to be bad, we just cannot tell now.
        throw new ServiceUnavailableException('Access tokens cannot be verified right now');
      }
      throw new AuthenticationError(reasonOf(error), 'invalid_token');
    }
  }
}

/** Extracts the token of an `Authorization: Bearer <token>` header. */
export function bearerTokenOf(header: string | undefined): string {
  if (header === undefined || header.trim() === '') throw new AuthenticationError('Missing bearer token');
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(header.trim());
  if (!match?.[1]) throw new AuthenticationError('Authorization header is not "Bearer <token>"', 'invalid_request');
  return match[1];
}

/** Paths every service serves without a token. */
const ALWAYS_PUBLIC = ['/health/live', '/health/ready', '/metrics'];

export interface AuthenticationOptions {
  config: Readonly<AuthConfig>;
  /** Further paths served without a token (the token endpoint and JWKS of the auth service). */
  publicPaths?: readonly string[];
}

const AUTHENTICATION_OPTIONS = Symbol('AUTHENTICATION_OPTIONS');

@Injectable()
class AuthenticationHook implements OnModuleInit {
  private readonly publicPaths: ReadonlySet<string>;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly verifier: AccessTokenVerifier,
    @Inject(AUTHENTICATION_OPTIONS) options: AuthenticationOptions,
  ) {
    this.publicPaths = new Set([...ALWAYS_PUBLIC, ...(options.publicPaths ?? [])]);
  }

  /**
   * Authenticates before routing: every request but the public ones must carry a valid token, so an
   * unauthenticated caller learns nothing about which paths exist.
   */
  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.decorateRequest('principal', null);
    fastify.addHook('onRequest', async (request: FastifyRequest) => {
      const path = request.url.split('?', 1)[0] ?? '';
      if (this.publicPaths.has(path)) return;
      request.principal = await this.verifier.verify(bearerTokenOf(request.headers.authorization));
    });
  }
}

/** Requires a valid bearer token on every non-public path of the service. */
@Global()
@Module({})
export class AuthenticationModule {
  static forRoot(options: AuthenticationOptions): DynamicModule {
    return {
      module: AuthenticationModule,
      providers: [
        { provide: AUTHENTICATION_OPTIONS, useValue: options },
        { provide: AccessTokenVerifier, useFactory: () => new JwksAccessTokenVerifier(options.config) },
        AuthenticationHook,
      ],
      exports: [AccessTokenVerifier],
    };
  }
}
