import { randomBytes } from 'node:crypto';
import {
  asLogin,
  loginUrl,
  migrateAsOwnRole,
  startPrivatePostgres,
  type PrivatePostgres,
  type ServiceLogin,
} from '@lx/testing';

// location-query faces every RSP: a foothold in it must not reach the clients and their secrets in auth's schema.
describe("location-query's own database login", () => {
  let postgres: PrivatePostgres;
  let auth: ServiceLogin;
  let locationQuery: ServiceLogin;

  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    [auth, locationQuery] = await Promise.all([
      migrateAsOwnRole(postgres, 'auth', 'auth', {
        AUTH_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        WEBHOOK_SECRET_TRANSPORT_KEY: randomBytes(32).toString('base64'),
      }),
      migrateAsOwnRole(postgres, 'location-query', 'location_query'),
    ]);
  }, 120_000);

  afterAll(async () => {
    await postgres?.destroy();
  });

  it('ran its own migrations and reads and writes its own tables', async () => {
    const rows = await asLogin(postgres, locationQuery.url, async (db) => {
      await db.query(
        `INSERT INTO location_query.consumer_offsets (group_id, topic, partition, next_offset) VALUES ('g', 't', 0, 1)`,
      );
      return (await db.query('SELECT group_id, next_offset FROM location_query.consumer_offsets')).rows;
    });
    expect(rows).toEqual([{ group_id: 'g', next_offset: '1' }]);
  });

  it("cannot read or change auth.clients, which auth's own login reads", async () => {
    expect(
      await asLogin(postgres, auth.url, async (db) => (await db.query('SELECT id FROM auth.clients')).rows),
    ).toEqual([]);
    for (const statement of [
      'SELECT id, secret_hash FROM auth.clients',
      `UPDATE auth.clients SET scopes = '{auth:admin}'`,
      'SELECT private_key_encrypted FROM auth.signing_keys',
    ]) {
      await expect(asLogin(postgres, locationQuery.url, (db) => db.query(statement))).rejects.toThrow(
        'permission denied for schema auth',
      );
    }
  });

  it('cannot log in with a wrong password, nor without TLS', async () => {
    await expect(
      asLogin(postgres, loginUrl(postgres.url, locationQuery.role, 'guessed'), (db) => db.query('SELECT 1')),
    ).rejects.toThrow(`password authentication failed for user "${locationQuery.role}"`);
    await expect(asLogin(postgres, locationQuery.url, (db) => db.query('SELECT 1'), 'disable')).rejects.toThrow(
      'no pg_hba.conf entry',
    );
  });

  it('migrating again applies nothing and leaves the schema its own (the provisioning is idempotent)', async () => {
    const again = await migrateAsOwnRole(postgres, 'location-query', 'location_query');
    expect(again.applied).toEqual([]);
    const owner = await asLogin(
      postgres,
      postgres.url,
      async (db) =>
        (await db.query(`SELECT pg_get_userbyid(nspowner) AS owner FROM pg_namespace WHERE nspname = 'location_query'`))
          .rows,
      'disable',
    );
    expect(owner).toEqual([{ owner: 'location_query' }]);
  }, 60_000);
});
