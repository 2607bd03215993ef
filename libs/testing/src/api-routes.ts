import { RequestMethod, type INestApplication, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '@lx/contracts';

/** One entry of the ingress route table (helm/location-exchange/files/routes.json). */
interface IngressRoute {
  path: string;
  pathType: 'Exact' | 'Prefix';
  service: string;
}

const ROUTE_TABLE = JSON.parse(
  readFileSync(join(__dirname, '../../../helm/location-exchange/files/routes.json'), 'utf8'),
) as { routes: IngressRoute[]; neverRouted: string[] };

/** Paths every service serves for its operators, never routed by the ingress: probes and Prometheus. */
const OPERATIONS_PATHS = ['/health/live', '/health/ready', '/metrics'];

/** The static files of the rendered document (the page at /docs loads them): routed, but not API operations. */
const DOCUMENTATION_FILES = '/docs/';

/** `GET /locations/:id`: a route as Fastify and Nest spell it. */
export type RouteKey = string;

/**
 * The service the ingress sends `path` to, as nginx and a Kubernetes Ingress choose: an exact route first, else the
 * longest prefix (a prefix matches itself and what follows it after a `/`, or anything after it when it ends in `/`).
 */
export function ingressServiceOf(path: string): string | undefined {
  const exact = ROUTE_TABLE.routes.find((route) => route.pathType === 'Exact' && route.path === path);
  if (exact !== undefined) return exact.service;
  const prefixes = ROUTE_TABLE.routes.filter(
    (route) =>
      route.pathType === 'Prefix' &&
      (path === route.path || path.startsWith(route.path.endsWith('/') ? route.path : `${route.path}/`)),
  );
  return prefixes.sort((a, b) => b.path.length - a.path.length)[0]?.service;
}

/** Whether the ingress must never route `path` (internal APIs, signing keys) or it is a probe or metrics path. */
export function isUnroutedByDesign(path: string): boolean {
  return OPERATIONS_PATHS.includes(path) || ROUTE_TABLE.neverRouted.some((prefix) => path.startsWith(prefix));
}

/** Whether a registered route is one of the rendered document's static files rather than an operation. */
export const isDocumentationFile = (route: RouteKey): boolean => pathOf(route).startsWith(DOCUMENTATION_FILES);

/** Every operation of the OpenAPI document, as route keys (`{id}` written `:id`). */
export function documentedRoutes(): RouteKey[] {
  const document = openApiDocument({ serverUrl: 'http://localhost' });
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.keys(item as object)
      .filter((method) => ['get', 'put', 'post', 'delete', 'patch'].includes(method))
      .map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
  );
}

/** The path of a route key. */
export const pathOf = (route: RouteKey): string => route.slice(route.indexOf(' ') + 1);

/**
 * Every HTTP route the application's controllers declare, read from Nest's route metadata (handlers inherited from a
 * base controller included), as route keys.
 */
export function registeredRoutes(app: INestApplication): RouteKey[] {
  const routes: RouteKey[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type | null;
      if (controller === null) continue;
      const bases = [Reflect.getMetadata(PATH_METADATA, controller) as string | string[] | undefined].flat();
      for (const handler of handlersOf(controller)) {
        const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (paths === undefined || method === undefined) continue;
        for (const base of bases) {
          for (const path of [paths].flat()) routes.push(`${RequestMethod[method]} ${joinPath(base ?? '', path)}`);
        }
      }
    }
  }
  return [...new Set(routes)].sort();
}

function handlersOf(controller: Type): ((...args: unknown[]) => unknown)[] {
  const handlers = new Set<(...args: unknown[]) => unknown>();
  for (let proto = controller.prototype as object | null; proto !== null && proto !== Object.prototype;) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const value = Object.getOwnPropertyDescriptor(proto, name)?.value as unknown;
      if (name !== 'constructor' && typeof value === 'function') handlers.add(value as (...args: unknown[]) => unknown);
    }
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return [...handlers];
}

function joinPath(base: string, path: string): string {
  const parts = [base, path].map((part) => part.replace(/^\/+|\/+$/g, '')).filter((part) => part !== '');
  return `/${parts.join('/')}`;
}
