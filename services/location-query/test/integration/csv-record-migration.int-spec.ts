import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { type Location, locationCsvRecord } from '@lx/contracts';
import { dataSourceOptions, migrateSchema } from '@lx/platform';
import { aNewLocation, requireEnv, uniqueSuffix } from '@lx/testing';
import { MIGRATIONS } from '../../src/database/migrations';

/** The migration that adds the CSV record column, over a read model written before it (real Postgres). */
describe('AddLocationCsvRecord migration', () => {
  const databaseUrl = requireEnv('DATABASE_URL');
  const schema = `lq_csv_${uniqueSuffix()}`;
  const db = new Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
  const migrate = async (migrations: typeof MIGRATIONS) => {
    const dataSource = new DataSource(
      dataSourceOptions({
        config: { url: databaseUrl, schema, poolSize: 2, migrateOnBoot: false },
        entities: [],
        migrations,
      }),
    );
    await dataSource.initialize();
    try {
      return await migrateSchema(dataSource, schema);
    } finally {
      await dataSource.destroy();
    }
  };

  beforeAll(() => db.connect());
  afterAll(async () => {
    await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db.end();
  });

  it('gives every existing row its CSV record, across backfill batches, and then requires one', async () => {
    expect(await migrate(MIGRATIONS.slice(0, 1))).toEqual([MIGRATIONS[0]!.name]);
    const sample = aNewLocation({ notes: 'Gate "B",\nthen left', customFields: { tier: 'gold', floors: 3 } });
    // More rows than one backfill batch (2,000), each a distinct valid location.
    const rows = 4_100;
    await db.query(
      `INSERT INTO locations (id, version, body, updated_at)
       SELECT gen_random_uuid(), 1, ($1::jsonb || jsonb_build_object('notes', 'row ' || n))::json, now()
         FROM generate_series(1, $2) AS n`,
      [JSON.stringify(sample), rows],
    );
    await db.query(`UPDATE locations SET body = (body::jsonb || jsonb_build_object('id', id))::json`);
    await db.query(`INSERT INTO locations (id, version, body, updated_at) VALUES ($1, 1, $2, now())`, [
      sample.id,
      JSON.stringify(sample),
    ]);

    expect(await migrate(MIGRATIONS.slice(0, 2))).toEqual([MIGRATIONS[1]!.name]);

    const { rows: stored } = await db.query<{ body: string; csv: string }>(
      `SELECT body::text AS body, csv FROM locations`,
    );
    expect(stored).toHaveLength(rows + 1);
    const wrong = stored.filter((row) => row.csv !== locationCsvRecord(JSON.parse(row.body) as Location));
    expect(wrong).toEqual([]);
    const own = stored.find((row) => row.body === JSON.stringify(sample));
    expect(own?.csv).toBe(locationCsvRecord(sample));
    await expect(
      db.query(`INSERT INTO locations (id, version, body, updated_at) VALUES (gen_random_uuid(), 1, '{}', now())`),
    ).rejects.toThrow(/csv/);
  });
});
