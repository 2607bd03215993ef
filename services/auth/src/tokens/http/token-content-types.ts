import { Injectable, type OnModuleInit, UnsupportedMediaTypeException } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { TOKEN_PATH } from './token.controller';

/**
 * Lets a token request of any content type reach the token endpoint, which then refuses it the OAuth way
 * (400 invalid_request) instead of Fastify's 415 in the spec's envelope that OAuth clients cannot read. Every other
 * path keeps answering 415 for content types without a parser. (Form bodies are parsed by the form parser that
 * Nest's Fastify adapter registers.)
 */
@Injectable()
export class TokenContentTypes implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    // The body stream is left unread: the reply is an error either way.
    fastify.addContentTypeParser('*', (request, _payload, done) => {
      if (request.url.split('?', 1)[0] === TOKEN_PATH) done(null, undefined);
      else
        done(
          new UnsupportedMediaTypeException(`Unsupported Content-Type: ${request.headers['content-type'] ?? 'none'}`),
        );
    });
  }
}
