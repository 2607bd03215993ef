import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface IngressRoute {
  path: string;
  pathType: 'Exact' | 'Prefix';
  service: string;
}

/** The route table of the public base URL, the one the chart's Ingresses and the local nginx are made from. */
export function loadIngressRoutes(repoRoot: string): IngressRoute[] {
  const file = join(repoRoot, 'helm', 'location-exchange', 'files', 'routes.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { routes: IngressRoute[] }).routes;
}

/**
 * The service that answers `path`, chosen as nginx chooses a location: an exact match wins, otherwise the longest
 * matching prefix (a plain string prefix, as nginx's); undefined when none matches.
 */
export function serviceFor(routes: readonly IngressRoute[], path: string): string | undefined {
  const exact = routes.find((route) => route.pathType === 'Exact' && route.path === path);
  if (exact) return exact.service;
  let best: IngressRoute | undefined;
  for (const route of routes) {
    if (route.pathType !== 'Prefix' || !path.startsWith(route.path)) continue;
    if (best === undefined || route.path.length > best.path.length) best = route;
  }
  return best?.service;
}
