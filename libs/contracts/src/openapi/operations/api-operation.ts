// The shape of an operation of the operation table, and of its bodies and replies.
import type { Scope } from '../../auth/scopes';
import type { ErrorCode } from '../../errors/error-codes';
import type { z } from '../extend-zod';
import type { HeaderName } from '../headers';
import type { ApiTag } from '../tags';

/** A request or reply body: its schema, one example, and its media type (JSON unless said). */
export interface Body {
  schema: z.ZodTypeAny;
  example: unknown;
  mediaType?: string;
  /** A request body is required unless it (or, with several media types, any of them) says `false`. */
  required?: boolean;
}

/** A success reply: what it means, its body, and the headers it carries beyond X-Request-Id. */
export interface Reply {
  description: string;
  body?: Body;
  headers?: HeaderName[];
}

/** One operation of the public API, as the document states it. */
export interface ApiOperation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI form: `/locations/{id}`. */
  path: string;
  operationId: string;
  tag: ApiTag;
  summary: string;
  description?: string;
  /** The scope a bearer token needs; `null` for a public operation. */
  scope: Scope | null;
  request?: {
    params?: z.AnyZodObject;
    query?: z.AnyZodObject;
    headers?: z.AnyZodObject;
    /** The body; several when the operation takes more than one media type (one Body per media type). */
    body?: Body | Body[];
  };
  /** Success replies (and 304) by status; and error replies not in the spec's error shape (the token endpoint's). */
  responses: Record<number, Reply>;
  /** Error codes beyond those every operation can answer (401/403 with a token, 413/415 with a body, 500, 503). */
  errors?: ErrorCode[];
  /**
   * Counted against the caller's rate limit (the services' RATE_LIMITS): 429 RATE_LIMIT_EXCEEDED past it, and the
   * RateLimit-Policy and RateLimit fields on its replies.
   */
  rateLimited?: true;
}

/** The media type a body is sent in: JSON unless it says otherwise. */
export const mediaTypeOf = (body: Body): string => body.mediaType ?? 'application/json';

/** An operation's request bodies as a list, one per media type it accepts; empty without a body. */
export function requestBodies(operation: ApiOperation): Body[] {
  const body = operation.request?.body;
  if (body === undefined) return [];
  return Array.isArray(body) ? body : [body];
}
