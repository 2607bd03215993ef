/**
 * The RSP receivers of the webhook benchmark, in a process of their own (so that neither the dispatcher nor the bare
 * loop shares its event loop): RECEIVERS healthy HTTP servers on loopback that answer 200 at once, and one that
 * accepts connections and never answers (the hanging endpoint). Each healthy receiver records, per request, the
 * delay from the event's timestamp (X-Event-Timestamp, or the bare loop's x-sent-at) to its arrival. Control: the
 * process prints `{"ports":[…],"hanging":port,"control":port}` on stdout; GET /stats on the control port returns the
 * counts (and with ?latencies=1 the latencies), POST /reset clears them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const RECEIVERS = Number(process.env['BENCH_RECEIVERS'] ?? 5);

interface Stats {
  count: number;
  latenciesMs: number[];
  ids: Set<string>;
  duplicates: number;
  first: number;
  last: number;
}

const fresh = (): Stats => ({ count: 0, latenciesMs: [], ids: new Set(), duplicates: 0, first: 0, last: 0 });
let stats: Stats[] = Array.from({ length: RECEIVERS }, fresh);

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function main(): Promise<void> {
  const ports: number[] = [];
  for (let index = 0; index < RECEIVERS; index++) {
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const now = Date.now();
        const own = stats[index]!;
        const sentAt = request.headers['x-event-timestamp'] ?? request.headers['x-sent-at'];
        const at = typeof sentAt === 'string' ? Date.parse(sentAt) : NaN;
        if (!Number.isNaN(at)) own.latenciesMs.push(now - at);
        const id = String(request.headers['webhook-id'] ?? request.headers['x-request-id'] ?? '');
        if (own.ids.has(id)) own.duplicates += 1;
        else own.ids.add(id);
        if (own.count === 0) own.first = now;
        own.count += 1;
        own.last = now;
        response.writeHead(200, { 'content-length': '0' });
        response.end();
      });
    });
    server.keepAliveTimeout = 60_000;
    ports.push(await listen(server));
  }
  const hanging = createServer(() => undefined);
  const hangingPort = await listen(hanging);
  const control = createServer((request, response) => {
    if (request.method === 'POST' && request.url === '/reset') {
      stats = Array.from({ length: RECEIVERS }, fresh);
      response.writeHead(204).end();
      return;
    }
    // The latencies only when asked for (at the end of a run): the counts are polled while the run goes on.
    const withLatencies = request.url === '/stats?latencies=1';
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify(
        stats.map(({ count, latenciesMs, duplicates, first, last }) => ({
          count,
          latenciesMs: withLatencies ? latenciesMs : [],
          duplicates,
          first,
          last,
        })),
      ),
    );
  });
  const controlPort = await listen(control);
  process.stdout.write(`${JSON.stringify({ ports, hanging: hangingPort, control: controlPort })}\n`);
}

void main();
