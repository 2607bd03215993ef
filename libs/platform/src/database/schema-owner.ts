import { Client, escapeIdentifier, escapeLiteral } from 'pg';
import type { DatabaseConfig } from '../config/config';
import { tlsOptionsOf } from './tls';

/** The role a service logs in as, and its password (undefined when the URL has none), from its DATABASE_URL. */
export function loginOf(url: string): { role: string; password: string | undefined } {
  const parsed = new URL(url);
  const role = decodeURIComponent(parsed.username);
  if (role === '') throw new Error('DATABASE_URL names no user: the service logs in as a role of its own');
  return { role, password: parsed.password === '' ? undefined : decodeURIComponent(parsed.password) };
}

/**
 * The statement that creates the service's role, or gives an existing one its login and the URL's password (a changed
 * password in the Secret takes effect at the next `migrate`). Never superuser, never able to create databases or
 * roles: a foothold in the service gains no more than its schema.
 */
export function roleStatement(exists: boolean, role: string, password: string | undefined): string {
  const withPassword = password === undefined ? '' : ` PASSWORD ${escapeLiteral(password)}`;
  return exists
    ? `ALTER ROLE ${escapeIdentifier(role)} WITH LOGIN${withPassword}`
    : `CREATE ROLE ${escapeIdentifier(role)} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS${withPassword}`;
}

/**
 * Every object of the schema the role does not own yet, as `ALTER … OWNER TO` statements: tables (their indexes and
 * the sequences of their serial and identity columns follow them), views, other sequences, functions, procedures and
 * types. Relations come first, so that a sequence a table owns has moved with it before the rest are listed.
 */
const OBJECTS_TO_HAND_OVER = `
  SELECT format('ALTER %s %s OWNER TO %I',
                CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
                               WHEN 'f' THEN 'FOREIGN TABLE' WHEN 'c' THEN 'TYPE' ELSE 'TABLE' END,
                format('%I.%I', n.nspname, c.relname), $2::text) AS statement
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'c', 'S') AND c.relowner <> $2::regrole
     AND NOT (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d
                                           WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                                             AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')))
  UNION ALL
  SELECT format('ALTER %s %I.%I(%s) OWNER TO %I', CASE p.prokind WHEN 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END,
                n.nspname, p.proname, pg_get_function_identity_arguments(p.oid), $2::text)
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
   WHERE n.nspname = $1 AND p.prokind IN ('f', 'p') AND p.proowner <> $2::regrole
  UNION ALL
  SELECT format('ALTER TYPE %I.%I OWNER TO %I', n.nspname, t.typname, $2::text)
    FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
   WHERE n.nspname = $1 AND t.typtype IN ('e', 'd', 'r') AND t.typowner <> $2::regrole`;

export interface SchemaOwnerOptions {
  /** An administrator's login: a superuser, or a role with CREATEROLE that owns the schema's objects so far. */
  adminUrl: string;
  /** The service's own login (its DATABASE_URL): the role to create or update, with its password. */
  url: string;
  schema: string;
  ssl?: DatabaseConfig['ssl'];
}

/**
 * Makes the service's own login the owner of its schema and of everything in it, so that it can run its migrations
 * and nothing else reaches the schema: creates the role (or sets its password to the URL's), creates the schema or
 * hands it over, hands over every object a former owner created (a deployment in which one login owned every schema),
 * and revokes what PUBLIC had on it. Idempotent, in one transaction, under an advisory lock per schema; nothing to do
 * when the service logs in as the administrator itself (one login for all, as in tests). Refuses a superuser role: it
 * would read every schema.
 */
export async function provisionSchemaOwner(options: SchemaOwnerOptions): Promise<{ role: string; handedOver: number }> {
  const { role, password } = loginOf(options.url);
  const admin = new Client({
    connectionString: options.adminUrl,
    ...(options.ssl !== undefined && { ssl: tlsOptionsOf(options.ssl) }),
  });
  await admin.connect();
  try {
    const [self] = (
      await admin.query<{ name: string; superuser: boolean }>(
        'SELECT current_user AS name, rolsuper AS superuser FROM pg_roles WHERE rolname = current_user',
      )
    ).rows;
    if (self?.name === role) return { role, handedOver: 0 };
    await admin.query('BEGIN');
    try {
      await admin.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`provision:${options.schema}`]);
      const [existing] = (
        await admin.query<{ superuser: boolean }>('SELECT rolsuper AS superuser FROM pg_roles WHERE rolname = $1', [
          role,
        ])
      ).rows;
      if (existing?.superuser === true) {
        throw new Error(`DATABASE_URL's user ${role} is a superuser: give the service a role of its own`);
      }
      await admin.query(roleStatement(existing !== undefined, role, password));
      // ALTER … OWNER TO needs membership in the new owner, which only a superuser does without.
      if (self?.superuser !== true) await admin.query(`GRANT ${escapeIdentifier(role)} TO CURRENT_USER`);
      const schema = escapeIdentifier(options.schema);
      await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema} AUTHORIZATION ${escapeIdentifier(role)}`);
      await admin.query(`ALTER SCHEMA ${schema} OWNER TO ${escapeIdentifier(role)}`);
      await admin.query(`REVOKE ALL ON SCHEMA ${schema} FROM PUBLIC`);
      const statements = (await admin.query<{ statement: string }>(OBJECTS_TO_HAND_OVER, [options.schema, role])).rows;
      for (const { statement } of statements) await admin.query(statement);
      await admin.query('COMMIT');
      return { role, handedOver: statements.length };
    } catch (error) {
      await admin.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    await admin.end();
  }
}
