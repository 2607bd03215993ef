import { OAuthError } from './oauth.error';
import { grantScopes } from './scope-grant';

describe('grantScopes', () => {
  it('given no requested scope, when granted, then the client gets every scope it holds', () => {
    expect(grantScopes(undefined, ['locations:read', 'locations:write'])).toEqual([
      'locations:read',
      'locations:write',
    ]);
  });

  it('given a subset, when granted, then exactly that subset in the held order', () => {
    expect(grantScopes(['locations:write'], ['locations:read', 'locations:write'])).toEqual(['locations:write']);
  });

  it('given a scope the client does not hold, when granted, then invalid_scope names it instead of narrowing', () => {
    const refuse = () => grantScopes(['locations:read', 'auth:admin'], ['locations:read']);
    expect(refuse).toThrow(OAuthError);
    expect(refuse).toThrow('The client may not request the scope auth:admin');
  });
});
