import { Controller, Get, Header, Inject, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  DOCUMENTATION_CONTENT_SECURITY_POLICY,
  OPENAPI_PATHS,
  openApiDocument,
  type OpenApiDocument,
} from '@lx/contracts';
import { AUTH_CONFIG, type AuthConfig } from '../../config/auth.config';

/** The files of the rendering at /docs/<name>: Swagger UI from its npm package, and the script that starts it. */
const ASSETS: Record<string, { type: string; file?: string; text?: string }> = {
  'swagger-ui.css': { type: 'text/css; charset=utf-8', file: 'swagger-ui.css' },
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', file: 'swagger-ui-bundle.js' },
  'favicon-32x32.png': { type: 'image/png', file: 'favicon-32x32.png' },
  // A file rather than an inline script, so a Content-Security-Policy without 'unsafe-inline' holds.
  'init.js': {
    type: 'text/javascript; charset=utf-8',
    // validatorUrl null: no badge fetched from validator.swagger.io (the page's policy allows its own origin only).
    text: `window.ui = SwaggerUIBundle({ url: '${OPENAPI_PATHS.document}', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null });\n`,
  },
};

const ASSET_PATHS = Object.keys(ASSETS).map((name) => `${OPENAPI_PATHS.docs}/${name}`);

/** Every path the documentation is served at; public, like the key set and the metadata. */
export const DOCUMENTATION_PATHS = [
  OPENAPI_PATHS.document,
  OPENAPI_PATHS.rspDocument,
  OPENAPI_PATHS.docs,
  ...ASSET_PATHS,
];

/** Where the swagger-ui-dist package keeps its files. */
const SWAGGER_UI_DIRECTORY = dirname(require.resolve('swagger-ui-dist/package.json'));

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Location Exchange API</title>
    <link rel="icon" type="image/png" href="${OPENAPI_PATHS.docs}/favicon-32x32.png" />
    <link rel="stylesheet" href="${OPENAPI_PATHS.docs}/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${OPENAPI_PATHS.docs}/swagger-ui-bundle.js"></script>
    <script src="${OPENAPI_PATHS.docs}/init.js"></script>
  </body>
</html>
`;

/** Changes only with a deployment: clients and shared caches may keep it for five minutes. */
const CACHE_CONTROL = 'public, max-age=300';

/**
 * GET /openapi.json: the OpenAPI 3.1 document of the public API, generated from the contracts with this deployment's
 * public base URL (the issuer) as its server and token URL base; GET /openapi-rsp.json: the same for RSPs, without
 * the operator's and the administrators' operations; GET /docs: the document rendered by Swagger UI, served from the
 * npm package (no CDN).
 */
@Controller()
export class ApiDocumentationController {
  private readonly document: OpenApiDocument;
  private readonly rspDocument: OpenApiDocument;
  private readonly files = new Map<string, Buffer>();

  constructor(@Inject(AUTH_CONFIG) config: AuthConfig) {
    this.document = openApiDocument({ serverUrl: config.auth.issuer });
    this.rspDocument = openApiDocument({ serverUrl: config.auth.issuer, audience: 'rsp' });
  }

  @Get(OPENAPI_PATHS.document)
  @Header('cache-control', CACHE_CONTROL)
  openApi(): OpenApiDocument {
    return this.document;
  }

  @Get(OPENAPI_PATHS.rspDocument)
  @Header('cache-control', CACHE_CONTROL)
  openApiForRsps(): OpenApiDocument {
    return this.rspDocument;
  }

  @Get(OPENAPI_PATHS.docs)
  @Header('cache-control', CACHE_CONTROL)
  @Header('content-type', 'text/html; charset=utf-8')
  // Swagger UI's own policy; every other reply has the API's, which would stop it loading its files.
  @Header('content-security-policy', DOCUMENTATION_CONTENT_SECURITY_POLICY)
  page(): string {
    return PAGE;
  }

  /** One route per file (no path parameter), so any other name under /docs/ is an unknown path like any other. */
  @Get(ASSET_PATHS)
  asset(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Buffer | string {
    const name = request.routeOptions.url!.slice(OPENAPI_PATHS.docs.length + 1);
    const asset = ASSETS[name]!;
    void reply.type(asset.type).header('cache-control', CACHE_CONTROL);
    if (asset.text !== undefined) return asset.text;
    let content = this.files.get(name);
    if (content === undefined) {
      content = readFileSync(join(SWAGGER_UI_DIRECTORY, asset.file!));
      this.files.set(name, content);
    }
    return content;
  }
}
