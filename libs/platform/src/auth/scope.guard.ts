import { type CanActivate, type ExecutionContext, Injectable, Logger, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import type { Scope } from '@lx/contracts';
import { InsufficientScopeError, UndeclaredScopeError } from './authentication.errors';

const REQUIRED_SCOPE = 'lx:required-scope';

/** States the scope an access token needs for a route (on a handler or a whole controller). */
export const RequireScope = (scope: Scope) => SetMetadata(REQUIRED_SCOPE, scope);

/**
 * Checks the scope a route requires against the principal the authentication hook found. Deny by default: a
 * route reached with a token but without @RequireScope answers 403, so forgetting the decorator closes a route
 * instead of opening it to every client.
 */
@Injectable()
export class ScopeGuard implements CanActivate {
  private readonly logger = new Logger(ScopeGuard.name);
  private readonly reported = new Set<string>();

  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    // The hook leaves the principal null only on the service's public paths (health, metrics, token endpoint).
    if (request.principal === null) return true;
    const scope = this.reflector.getAllAndOverride<Scope | undefined>(REQUIRED_SCOPE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (scope === undefined) {
      this.reportUndeclared(context);
      throw new UndeclaredScopeError();
    }
    if (request.principal.scopes.includes(scope)) return true;
    throw new InsufficientScopeError(scope);
  }

  private reportUndeclared(context: ExecutionContext): void {
    const route = `${context.getClass().name}.${context.getHandler().name}`;
    if (this.reported.has(route)) return;
    this.reported.add(route);
    this.logger.error({ msg: 'Route has no @RequireScope and is closed to every token', route });
  }
}
