import { API_OPERATIONS } from '@lx/contracts';
import { documentedRoutes, ingressServiceOf, isUnroutedByDesign, pathOf } from '@lx/testing';

// The other half, every route a service registers is documented, is in each service's smoke test (service-smoke.ts).
describe('the OpenAPI document the auth service serves, and the ingress route table', () => {
  it('routes every documented path to a service, and documents no path the ingress must never route', () => {
    const routes = documentedRoutes();
    expect(routes).toHaveLength(API_OPERATIONS.length);
    expect(routes.filter((route) => ingressServiceOf(pathOf(route).replace(/:\w+/g, 'x')) === undefined)).toEqual([]);
    expect(routes.filter((route) => isUnroutedByDesign(pathOf(route)))).toEqual([]);
  });

  it('chooses the exact route first, then the longest prefix, as nginx and an Ingress do', () => {
    expect(ingressServiceOf('/locations/statistics')).toBe('statistics-projection');
    expect(ingressServiceOf('/locations/exports/x')).toBe('export-worker');
    expect(ingressServiceOf('/locations/x')).toBe('location-query');
    expect(ingressServiceOf('/openapi.json')).toBe('auth');
    expect(ingressServiceOf('/internal/watermark')).toBeUndefined();
    expect(ingressServiceOf('/locationsx')).toBeUndefined();
  });
});
