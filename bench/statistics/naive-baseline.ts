/**
 * The baseline of the statistics benchmark: the naive way to answer GET /locations/statistics, a bare Fastify handler
 * running `SELECT …, count(*) … GROUP BY` over the per-location rows for every request (no maintained counters), on
 * the same table and with the same indexes as the service. Started by statistics-bench.ts as its own process.
 */
import Fastify from 'fastify';
import { Pool } from 'pg';
import { SERVICEABILITY_STATUSES } from '@lx/contracts';
import { parseStatisticsQuery, type QueryParameters } from '@lx/domain';

const pool = new Pool({
  connectionString: process.env['DATABASE_URL'],
  max: Number(process.env['DATABASE_POOL_SIZE'] ?? 10),
  options: `-c search_path=${process.env['DATABASE_SCHEMA']}`,
});
const app = Fastify({ logger: false });

app.get('/locations/statistics', async (request, reply) => {
  const parsed = parseStatisticsQuery(request.query as QueryParameters);
  if (!parsed.ok) return reply.status(400).send({ error: { code: parsed.error.code } });
  const filter = parsed.value;
  const conditions: string[] = [];
  const values: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    values.push(value);
    conditions.push(sql.replace('?', `$${values.length}`));
  };
  if (filter.statuses) add('status = ANY(?)', filter.statuses);
  if (filter.modifiedSince) add('updated_at > ?', filter.modifiedSince);
  if (filter.modifiedBefore) add('updated_at < ?', filter.modifiedBefore);
  if (filter.hasAddress !== undefined) add('has_address = ?', filter.hasAddress);
  if (filter.hasCoordinates !== undefined) add('has_coordinates = ?', filter.hasCoordinates);
  if (filter.hasLocationGroup !== undefined)
    conditions.push(`location_group_id IS ${filter.hasLocationGroup ? 'NOT ' : ''}NULL`);
  if (filter.addressGroupId) add('address_group_id = ?', filter.addressGroupId);
  if (filter.locationGroupId) add('location_group_id = ?', filter.locationGroupId);
  if (filter.country) add('country = ?', filter.country);
  if (filter.region) add('region = ?', filter.region);
  if (filter.locality) add('locality = ?', filter.locality);
  if (filter.postalCode) add('postal_code = ?', filter.postalCode);
  const { rows } = await pool.query<{
    status: string | null;
    has_address: boolean;
    has_coordinates: boolean;
    grouped: boolean;
    n: string;
  }>(
    `SELECT status, has_address, has_coordinates, location_group_id IS NOT NULL AS grouped, count(*) AS n
       FROM location_facts ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''} GROUP BY 1, 2, 3, 4`,
    values,
  );
  const sum = (keep: (row: (typeof rows)[number]) => boolean) =>
    rows.filter(keep).reduce((total, row) => total + Number(row.n), 0);
  const totalCount = sum(() => true);
  const grouped = sum((row) => row.grouped);
  return {
    totalCount,
    countByStatus: Object.fromEntries(
      SERVICEABILITY_STATUSES.map((status) => [status, sum((row) => row.status === status)]),
    ),
    countByType: {
      addressOnly: sum((row) => row.has_address && !row.has_coordinates),
      coordinatesOnly: sum((row) => !row.has_address && row.has_coordinates),
      addressAndCoordinates: sum((row) => row.has_address && row.has_coordinates),
      grouped,
      standalone: totalCount - grouped,
    },
    queryTimestamp: new Date().toISOString(),
  };
});
app.get('/ready', (_request, reply) => reply.send({ ok: true }));

app.listen({ port: Number(process.env['HTTP_PORT']), host: '127.0.0.1' }).catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
