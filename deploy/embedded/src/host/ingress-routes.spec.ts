import { REPO_ROOT } from '@lx/testing';
import { edgeRefusal, type IngressRoute, loadIngressRoutes, normalisedPath, serviceFor } from './ingress-routes';

describe('serviceFor (nginx location matching over the route table)', () => {
  const routes: IngressRoute[] = [
    { path: '/locations', pathType: 'Prefix', service: 'query' },
    { path: '/locations/exports', pathType: 'Prefix', service: 'exports' },
    { path: '/locations/statistics', pathType: 'Exact', service: 'statistics' },
    { path: '/oauth/', pathType: 'Prefix', service: 'auth' },
  ];

  it('prefers an exact match, then the longest prefix', () => {
    expect(serviceFor(routes, '/locations/statistics')).toBe('statistics');
    expect(serviceFor(routes, '/locations/statistics/x')).toBe('query');
    expect(serviceFor(routes, '/locations/exports/123')).toBe('exports');
    expect(serviceFor(routes, '/locations/123')).toBe('query');
    expect(serviceFor(routes, '/locations')).toBe('query');
  });

  it('matches prefixes as plain strings, as nginx does, and nothing else', () => {
    expect(serviceFor(routes, '/locationsfoo')).toBe('query');
    expect(serviceFor(routes, '/oauth')).toBeUndefined();
    expect(serviceFor(routes, '/oauth/token')).toBe('auth');
    expect(serviceFor(routes, '/internal/snapshot')).toBeUndefined();
    expect(serviceFor(routes, '/')).toBeUndefined();
  });

  it('routes the real table: public paths to their services, internal ones nowhere', () => {
    const table = loadIngressRoutes(REPO_ROOT);
    expect(serviceFor(table, '/oauth/token')).toBe('auth');
    expect(serviceFor(table, '/locations/statistics')).toBe('statistics-projection');
    expect(serviceFor(table, '/locations/exports')).toBe('export-worker');
    expect(serviceFor(table, '/operator/locations')).toBe('location-command');
    expect(serviceFor(table, '/webhooks/deliveries')).toBe('webhook-dispatcher');
    expect(serviceFor(table, '/internal/locations/snapshot')).toBeUndefined();
    expect(serviceFor(table, '/admin/keys')).toBeUndefined();
    expect(serviceFor(table, '/health/ready')).toBeUndefined();
  });
});

describe('normalisedPath (the path nginx matches its locations against)', () => {
  it.each([
    ['/locations/abc', '/locations/abc'],
    ['/locations/%2E%2E/internal/snapshot', '/internal/snapshot'],
    ['/locations%2Fexports', '/locations/exports'],
    ['//locations///x', '/locations/x'],
    ['/oauth/./token', '/oauth/token'],
    ['/oauth/token/..', '/oauth/'],
    ['/oauth/', '/oauth/'],
    ['/', '/'],
    ['/a/%FF', '/a/\u00ff'],
  ])('reads %s as %s', (raw, path) => {
    expect(normalisedPath(raw)).toBe(path);
  });

  it.each(['/..', '/locations/..%2F..%2Fetc%2Fpasswd', '/a/../../b', '/a/%zz', '/a/%2'])(
    'refuses %s, as nginx does with 400',
    (raw) => {
      expect(normalisedPath(raw)).toBeUndefined();
    },
  );
});

describe('edgeRefusal (what nginx answers itself)', () => {
  it('lets an ordinary request through', () => {
    expect(edgeRefusal('GET', '/locations/x?limit=10', ['Host', 'example', 'Accept', '*/*'])).toBeUndefined();
  });

  // The thresholds are nginx's, measured against the local ingress (nginx 1.22, default buffers).
  it('answers 414 (URI_TOO_LONG) for a request line over 8 KB, as nginx with its default buffers', () => {
    const url = (length: number) => `/locations/${'x'.repeat(length - '/locations/'.length)}`;
    expect(edgeRefusal('GET', url(8177), [])).toBeUndefined();
    expect(edgeRefusal('GET', url(8178), [])).toBe(414);
  });

  it('answers 400 (INVALID_REQUEST) for a header line over 8 KB and for a path above the root', () => {
    expect(edgeRefusal('GET', '/locations', ['X-Big', 'y'.repeat(8184)])).toBe(400);
    expect(edgeRefusal('GET', '/locations', ['X-Big', 'y'.repeat(8183)])).toBeUndefined();
    expect(edgeRefusal('GET', '/locations/..%2F..%2Fetc%2Fpasswd', [])).toBe(400);
  });
});
