/**
 * The baseline of the GET /locations/{id} benchmark: a bare Fastify handler doing the same primary-key lookup on the
 * same table with node-postgres, and nothing else (no framework, no authentication, no logging, no metrics). Started
 * by get-location-bench.ts as its own process, like the service.
 */
import Fastify from 'fastify';
import { Pool } from 'pg';

const pool = new Pool({
  connectionString: process.env['DATABASE_URL'],
  max: Number(process.env['DATABASE_POOL_SIZE'] ?? 10),
  options: `-c search_path=${process.env['DATABASE_SCHEMA']}`,
});
const prepared = process.env['BASELINE_PREPARED'] === '1';
const app = Fastify({ logger: false });

app.get<{ Params: { id: string } }>('/locations/:id', async (request, reply) => {
  const { rows } = await pool.query<{ version: number; body: string }>({
    // BASELINE_PREPARED=1: a named statement, parsed and planned once per connection, as the service does.
    ...(prepared ? { name: 'location-by-id' } : {}),
    text: 'SELECT version, body::text AS body FROM locations WHERE id = $1',
    values: [request.params.id],
  });
  const row = rows[0];
  if (row === undefined) return reply.status(404).send({ error: { code: 'RESOURCE_NOT_FOUND' } });
  return reply.header('etag', `"${row.version}"`).type('application/json; charset=utf-8').send(row.body);
});
app.get('/ready', (_request, reply) => reply.send({ ok: true }));

app.listen({ port: Number(process.env['HTTP_PORT']), host: '127.0.0.1' }).catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
