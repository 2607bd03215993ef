import { allowedMethods, matchesRoute } from './method-not-allowed';

describe('matchesRoute', () => {
  it.each([
    ['/locations/:id', '/locations/3f6c', true],
    ['/locations/:id', '/locations/', false],
    ['/locations/:id', '/locations', false],
    ['/locations/:id', '/locations/3f6c/x', false],
    ['/locations', '/locations', true],
    ['/locations/statistics', '/locations/statistic', false],
    ['/webhooks/deliveries/:id/redeliver', '/webhooks/deliveries/9/redeliver', true],
  ])('matches the pattern %s against %s: %s', (pattern, path, expected) => {
    expect(matchesRoute(pattern, path)).toBe(expected);
  });
});

describe('allowedMethods', () => {
  const routes = [
    { method: 'GET', url: '/operator/locations/:id' },
    { method: 'HEAD', url: '/operator/locations/:id' },
    { method: 'PATCH', url: '/operator/locations/:id' },
    { method: 'PUT', url: '/operator/locations/:id' },
    { method: 'POST', url: '/operator/locations' },
  ];

  it('lists every method of the matching routes once, sorted', () => {
    expect(
      allowedMethods([...routes, { method: 'GET', url: '/operator/locations/:id' }], '/operator/locations/7'),
    ).toEqual(['GET', 'HEAD', 'PATCH', 'PUT']);
    expect(allowedMethods(routes, '/operator/locations')).toEqual(['POST']);
  });

  it('is empty for a path no route has', () => {
    expect(allowedMethods(routes, '/operator/nothing')).toEqual([]);
  });
});
