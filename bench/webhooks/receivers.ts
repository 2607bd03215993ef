/**
 * The RSP receivers of the webhook benchmarks, in a process of their own (so that neither the dispatcher nor the bare
 * loop shares its event loop), HTTP servers on loopback of four kinds, as many of each as RECEIVERS_HEALTHY,
 * RECEIVERS_SLOW, RECEIVERS_FLAKY and RECEIVERS_HANGING say (default 5, 0, 0, 1):
 *
 * - healthy: answers 200 at once;
 * - slow: answers 200 after SLOW_ANSWER_MS (default 1,000 ms);
 * - flaky: answers 500 to the first attempt of FLAKY_PERCENT (default 10) % of the messages, chosen by a hash of the
 *   webhook-id (the same ones in every run), and 200 to everything else, so every message is delivered in the end;
 * - hanging: accepts connections and requests and never answers.
 *
 * Each receiver counts the requests, the distinct webhook-ids (the bare loop's x-request-id), the 2xx answers and the
 * 500s, and the repeats of a webhook-id it had already answered 2xx (a delivery received twice; a flaky receiver's
 * retry after its 500 is none), and records per request the delay from the event's timestamp (X-Event-Timestamp, or
 * the bare loop's x-sent-at) to its arrival. Control: the process prints
 * `{"healthy":[…],"slow":[…],"flaky":[…],"hanging":[…],"control":port}` (the ports) on stdout; GET /stats on the
 * control port returns each receiver's counts in that order (and with ?latencies=1 the latencies), POST /reset clears
 * them.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const KINDS = ['healthy', 'slow', 'flaky', 'hanging'] as const;
type Kind = (typeof KINDS)[number];

const COUNTS: Record<Kind, number> = {
  healthy: Number(process.env['RECEIVERS_HEALTHY'] ?? 5),
  slow: Number(process.env['RECEIVERS_SLOW'] ?? 0),
  flaky: Number(process.env['RECEIVERS_FLAKY'] ?? 0),
  hanging: Number(process.env['RECEIVERS_HANGING'] ?? 1),
};
const SLOW_ANSWER_MS = Number(process.env['SLOW_ANSWER_MS'] ?? 1000);
const FLAKY_PERCENT = Number(process.env['FLAKY_PERCENT'] ?? 10);

/** What a receiver knows of a webhook-id: received (not answered, or refused), or answered 2xx. */
const RECEIVED = 1;
const DELIVERED = 2;

interface Stats {
  count: number;
  unique: number;
  ok: number;
  failed: number;
  duplicates: number;
  latenciesMs: number[];
  ids: Map<string, number>;
  first: number;
  last: number;
}

const fresh = (): Stats => ({
  count: 0,
  unique: 0,
  ok: 0,
  failed: 0,
  duplicates: 0,
  latenciesMs: [],
  ids: new Map(),
  first: 0,
  last: 0,
});

const receivers: { kind: Kind; port: number }[] = [];
let stats: Stats[] = [];

/** Whether a flaky receiver refuses the first attempt of this message: the same choice in every run. */
const refusedOnce = (id: string): boolean =>
  createHash('sha256').update(id).digest().readUInt32BE(0) % 100 < FLAKY_PERCENT;

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function receiver(index: number, kind: Kind): Server {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const now = Date.now();
      const own = stats[index]!;
      const sentAt = request.headers['x-event-timestamp'] ?? request.headers['x-sent-at'];
      const at = typeof sentAt === 'string' ? Date.parse(sentAt) : NaN;
      if (!Number.isNaN(at)) own.latenciesMs.push(now - at);
      const id = String(request.headers['webhook-id'] ?? request.headers['x-request-id'] ?? '');
      const known = own.ids.get(id);
      if (known === undefined) own.unique += 1;
      else if (known === DELIVERED) own.duplicates += 1;
      if (own.count === 0) own.first = now;
      own.count += 1;
      own.last = now;
      if (kind === 'hanging') {
        own.ids.set(id, RECEIVED);
        return;
      }
      if (kind === 'flaky' && known === undefined && refusedOnce(id)) {
        own.ids.set(id, RECEIVED);
        own.failed += 1;
        response.writeHead(500, { 'content-length': '0' });
        response.end();
        return;
      }
      const answer = () => {
        if (response.destroyed) return;
        own.ids.set(id, DELIVERED);
        own.ok += 1;
        response.writeHead(200, { 'content-length': '0' });
        response.end();
      };
      if (kind === 'slow') setTimeout(answer, SLOW_ANSWER_MS);
      else answer();
    });
  });
  server.keepAliveTimeout = 60_000;
  return server;
}

async function main(): Promise<void> {
  for (const kind of KINDS) {
    for (let n = 0; n < COUNTS[kind]; n++) {
      receivers.push({ kind, port: await listen(receiver(receivers.length, kind)) });
    }
  }
  stats = receivers.map(fresh);
  const control = createServer((request, response) => {
    if (request.method === 'POST' && request.url === '/reset') {
      stats = receivers.map(fresh);
      response.writeHead(204).end();
      return;
    }
    // The latencies only when asked for (at the end of a run): the counts are polled while the run goes on.
    const withLatencies = request.url === '/stats?latencies=1';
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify(
        stats.map(({ ids: _ids, latenciesMs, ...counts }, index) => ({
          ...receivers[index]!,
          ...counts,
          latenciesMs: withLatencies ? latenciesMs : [],
        })),
      ),
    );
  });
  const controlPort = await listen(control);
  const ports = (kind: Kind) => receivers.filter((one) => one.kind === kind).map((one) => one.port);
  const announced = Object.fromEntries(KINDS.map((kind) => [kind, ports(kind)]));
  process.stdout.write(`${JSON.stringify({ ...announced, control: controlPort })}\n`);
}

void main();
