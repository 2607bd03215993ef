import { Controller, Get, Header, Inject } from '@nestjs/common';
import {
  AUTHORIZATION_SERVER_METADATA_PATH,
  OPENAPI_PATHS,
  type AuthorizationServerMetadata,
  OPENID_CONFIGURATION_PATH,
} from '@lx/contracts';
import { AUTH_CONFIG, type AuthConfig } from '../../config/auth.config';
import { JWKS_PATH } from '../../keys/http/jwks.controller';
import { TOKEN_PATH } from '../../tokens/http/token.controller';
import { authorizationServerMetadata } from '../domain/authorization-server-metadata';

/** Paths of the metadata document; public (no bearer token), like the token endpoint and the key set. */
export const METADATA_PATHS = [AUTHORIZATION_SERVER_METADATA_PATH, OPENID_CONFIGURATION_PATH] as const;

/**
 * Changes only with the configuration (a deployment), so clients and shared caches may keep it for an hour (RFC 8414
 * section 3.2 leaves caching to HTTP).
 */
const CACHE_CONTROL = 'public, max-age=3600';

/** GET /.well-known/oauth-authorization-server (RFC 8414), also served at /.well-known/openid-configuration. */
@Controller()
export class AuthorizationServerMetadataController {
  private readonly metadata: AuthorizationServerMetadata;

  constructor(@Inject(AUTH_CONFIG) config: AuthConfig) {
    this.metadata = authorizationServerMetadata(config.auth.issuer, {
      tokenPath: TOKEN_PATH,
      jwksPath: JWKS_PATH,
      documentationPath: OPENAPI_PATHS.docs,
    });
  }

  @Get([...METADATA_PATHS])
  @Header('cache-control', CACHE_CONTROL)
  metadataDocument(): AuthorizationServerMetadata {
    return this.metadata;
  }
}
