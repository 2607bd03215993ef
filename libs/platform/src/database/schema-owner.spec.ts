import { loginOf, roleStatement } from './schema-owner';

describe('loginOf (the role and password of a service from its DATABASE_URL)', () => {
  it('given a URL with user and password, then both, percent-decoded', () => {
    expect(loginOf('postgresql://location_query:p%40ss%2Fw0rd@db:5432/lx')).toEqual({
      role: 'location_query',
      password: 'p@ss/w0rd',
    });
  });

  it('given a URL without password (certificate or trust login), then the role alone', () => {
    expect(loginOf('postgresql://auth@db/lx')).toEqual({ role: 'auth', password: undefined });
  });

  it('given a URL without user, then it is refused: the service must log in as a role of its own', () => {
    expect(() => loginOf('postgresql://db:5432/lx')).toThrow('DATABASE_URL names no user');
  });
});

describe('roleStatement', () => {
  it('given a new role, then it is created with a login and none of the powers that reach beyond its schema', () => {
    expect(roleStatement(false, 'location_query', 's3cret')).toBe(
      `CREATE ROLE "location_query" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS PASSWORD 's3cret'`,
    );
  });

  it('given an existing role, then it gets its login and the password of the URL (a rotation)', () => {
    expect(roleStatement(true, 'auth', 'n3w')).toBe(`ALTER ROLE "auth" WITH LOGIN PASSWORD 'n3w'`);
  });

  it('given no password, then the password is left as it is', () => {
    expect(roleStatement(true, 'auth', undefined)).toBe('ALTER ROLE "auth" WITH LOGIN');
    expect(roleStatement(false, 'auth', undefined)).toBe(
      'CREATE ROLE "auth" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS',
    );
  });

  it('given quotes in the name or the password, then they are escaped, never closing the literal', () => {
    expect(roleStatement(true, 'we"ird', "it's")).toBe(`ALTER ROLE "we""ird" WITH LOGIN PASSWORD 'it''s'`);
  });
});
