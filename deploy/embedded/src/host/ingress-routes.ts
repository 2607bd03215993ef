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

/**
 * nginx's default `large_client_header_buffers 4 8k`: a request line longer than one buffer is 414, a header line
 * longer than one is 400 (its code 494, sent as 400).
 */
const LARGE_HEADER_BUFFER_BYTES = 8192;

/** The status of a request the ingress answers itself, as nginx does in the stack, before any route is chosen. */
export type EdgeRefusal = 400 | 414;

/**
 * The path nginx matches its locations against: percent-decoded (%2F included) with `.` and `..` segments resolved and
 * repeated slashes merged; undefined where nginx refuses the request (400): a `..` above the root or a malformed
 * percent-escape. Only the choice of route uses it; the service receives the request line as sent, as nginx's
 * `proxy_pass` without a URI part forwards it.
 */
export function normalisedPath(rawPath: string): string | undefined {
  // Byte by byte, as nginx decodes: any byte is fine, a `%` without two hexadecimal digits is not.
  if (/%(?![0-9A-Fa-f]{2})/.test(rawPath)) return undefined;
  const decoded = rawPath.replace(/%([0-9A-Fa-f]{2})/g, (_escape, hex: string) =>
    String.fromCharCode(parseInt(hex, 16)),
  );
  const segments: string[] = [];
  for (const segment of decoded.split('/').slice(1)) {
    if (segment === '..') {
      if (segments.length === 0) return undefined;
      segments.pop();
    } else if (segment !== '.' && segment !== '') {
      segments.push(segment);
    }
  }
  const trailing = decoded.length > 1 && /\/\.{0,2}$/.test(decoded) ? '/' : '';
  return `/${segments.join('/')}${segments.length > 0 ? trailing : ''}`;
}

/**
 * What nginx answers itself for a request line and headers (`rawHeaders`: Node's alternating names and values),
 * undefined when the request goes on to its route. Its body is the ingress's (EDGE_ERRORS, answerEdgeError).
 */
export function edgeRefusal(method: string, url: string, rawHeaders: readonly string[]): EdgeRefusal | undefined {
  // "GET <url> HTTP/1.1\r\n" must fit one buffer (nginx 1.22 measured: a GET of a 8,177-byte URL passes, 8,178 is 414).
  if (method.length + url.length + 12 > LARGE_HEADER_BUFFER_BYTES) {
    return 414;
  }
  for (let n = 0; n + 1 < rawHeaders.length; n += 2) {
    // "<name>: <value>\r\n" must fit one buffer too (measured: X-Big with a value of 8,183 bytes passes, 8,184 is 400).
    if (rawHeaders[n]!.length + rawHeaders[n + 1]!.length + 4 > LARGE_HEADER_BUFFER_BYTES) return 400;
  }
  if (normalisedPath(url.split('?')[0]!) === undefined) return 400;
  return undefined;
}
