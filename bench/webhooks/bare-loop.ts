/**
 * The baseline of the webhook benchmark: a bare loop of HTTP POSTs from one process to the same receivers, with
 * nothing but the request: no database, no Kafka, no signature. BARE_REQUESTS per receiver, BARE_CONCURRENCY in flight
 * per receiver over keep-alive connections (the dispatcher's per-endpoint concurrency), a body of the size of a
 * location event. Prints `{"seconds":…}` when every request was answered.
 */
import http from 'node:http';

const ports = (process.env['BARE_PORTS'] ?? '').split(',').map(Number);
const requests = Number(process.env['BARE_REQUESTS'] ?? 4000);
const concurrency = Number(process.env['BARE_CONCURRENCY'] ?? 16);
const body = Buffer.from(process.env['BARE_BODY'] ?? '{}');

const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });

function post(port: number, index: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/hooks/locations/events',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': String(body.length),
          'x-sent-at': new Date().toISOString(),
          'x-request-id': `${port}-${index}`,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${response.statusCode}`)),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

async function lane(port: number, next: () => number | undefined): Promise<void> {
  for (let index = next(); index !== undefined; index = next()) await post(port, index);
}

async function main(): Promise<void> {
  const started = performance.now();
  await Promise.all(
    ports.map((port) => {
      let sent = 0;
      const next = () => (sent < requests ? sent++ : undefined);
      return Promise.all(Array.from({ length: concurrency }, () => lane(port, next)));
    }),
  );
  process.stdout.write(`${JSON.stringify({ seconds: (performance.now() - started) / 1000 })}\n`);
  agent.destroy();
}

void main();
