import { REPO_ROOT } from '@lx/testing';
import { type IngressRoute, loadIngressRoutes, serviceFor } from './ingress-routes';

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
