/**
 * The baseline of the write benchmark: a bare Fastify handler that does one INSERT per request with node-postgres, on
 * a table with a primary key and the request's JSON, with the same durability as the service (synchronous commit, the
 * server's default), and nothing else: no framework, no authentication, no validation, no event, no read. Started by
 * write-bench.ts as its own process, like the service. POST /things and PATCH /things/:id both insert one row.
 */
import Fastify from 'fastify';
import { Pool } from 'pg';

const pool = new Pool({
  connectionString: process.env['DATABASE_URL'],
  max: Number(process.env['DATABASE_POOL_SIZE'] ?? 10),
  options: `-c search_path=${process.env['DATABASE_SCHEMA']}`,
});
const app = Fastify({ logger: false });

const insert = async (id: string | null, body: unknown) => {
  await pool.query({
    name: 'insert-write',
    text: 'INSERT INTO writes (thing_id, body) VALUES (coalesce($1::uuid, gen_random_uuid()), $2::jsonb)',
    values: [id, JSON.stringify(body)],
  });
};

app.post('/things', async (request, reply) => {
  await insert(null, request.body);
  return reply.status(201).send({ ok: true });
});
app.patch<{ Params: { id: string } }>('/things/:id', async (request, reply) => {
  await insert(request.params.id, request.body);
  return reply.send({ ok: true });
});
app.get('/ready', (_request, reply) => reply.send({ ok: true }));

app.listen({ port: Number(process.env['HTTP_PORT']), host: '127.0.0.1' }).catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
