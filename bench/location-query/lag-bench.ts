/**
 * Write-to-read lag of the read side: the time from a location-command write's 2xx to the change being visible in
 * location-query (GET /locations/{id}) and in statistics-projection, at a steady write rate (default 1,000/s).
 *
 *   bash bench/location-query/run-lag.sh     (BENCH_RATE writes/s, default 1000; BENCH_SECONDS, default 30)
 *
 * The three services run from dist/ as their own processes on fresh schemas and on topics of the run's own (a topic
 * prefix, deleted at the end). Setup (not timed): 2,000 locations created through the API. Then, open loop, every 10 ms
 * BENCH_RATE/100 writes are sent (PATCH of status and notes on a random location; every fifth a POST creating one),
 * at most 256 in flight; a write that would exceed that is counted as not sent, so the achieved rate is reported.
 * Visibility is observed by polling, every 10 ms, the very rows each endpoint reads — location-query's `locations`
 * (GET /locations/{id} reads it with no cache in between) and statistics' `location_facts` (its counters change in
 * the same transaction) — for the write's version or newer; a 2 % sample is also polled through GET /locations/{id}
 * as a cross-check. Lag resolution is the poll interval plus one query (about 10–15 ms). Loopback only.
 * BENCH_SOURCE=kafka skips the write side: the same changes are published straight to the run's location.events.v1 as
 * location-command's relay would (one producer request per 10 ms tick), and lag is counted from Kafka's ack, which
 * measures the read side alone at the given rate. BENCH_KEEP=1 keeps the schemas and the topics.
 */
import { randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { Client } from 'pg';
import { KAFKA_HEADERS, TOPICS } from '@lx/contracts';
import { KafkaEventBus } from '@lx/messaging';
import { loadInfraEnv, REPO_ROOT, requireEnv } from '../../libs/testing/src/infra-env';
import { createPrivateTopics } from '../../libs/testing/src/kafka-topics';
import { startTestTokenIssuer } from '../../libs/testing/src/token-issuer';
import {
  aWriteBody,
  call as callOn,
  loadAverage,
  log,
  percentile,
  positionAtLogEnd,
  run,
  type Server,
  startServer,
  table,
} from './bench-support';

const RATE = Number(process.env['BENCH_RATE'] ?? 1_000);
/** `command`: writes through location-command's API (the real path); `kafka`: events published straight to the topic. */
const SOURCE = process.env['BENCH_SOURCE'] === 'kafka' ? 'kafka' : 'command';
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 30);
const SEED_LOCATIONS = 2_000;
const MAX_IN_FLIGHT = 256;
const POLL_MS = 10;
const dist = (service: string, file: string) =>
  join(REPO_ROOT, `dist/services/${service}/services/${service}/src/${file}`);

const agent = new Agent({ keepAlive: true, maxSockets: MAX_IN_FLIGHT });

const call = (url: string, method: string, token: string, body?: unknown, contentType?: string) =>
  callOn(agent, url, method, token, body, contentType);

const versionOf = (etag: string | undefined) => Number((etag ?? '"0"').replace(/"/g, ''));

const aBody = (n: number) => aWriteBody('Lag', n);

/** A write waiting to be seen: the version its 2xx named, and when the 2xx arrived. */
interface Pending {
  id: string;
  version: number;
  acknowledgedAt: number;
}

/** Polls `table` every POLL_MS for pending writes and records each one's lag when its version (or a newer) shows. */
function watch(db: Client, sql: string) {
  const pending = new Map<string, Pending[]>();
  const lags: number[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped || pending.size > 0) {
      const ids = [...pending.keys()];
      if (ids.length > 0) {
        const { rows } = await db.query<{ id: string; version: number }>(sql, [ids]);
        const seenAt = performance.now();
        for (const row of rows) {
          const waiting = pending.get(row.id) ?? [];
          const left = waiting.filter((write) => {
            if (write.version > row.version) return true;
            lags.push(seenAt - write.acknowledgedAt);
            return false;
          });
          if (left.length === 0) pending.delete(row.id);
          else pending.set(row.id, left);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  })();
  return {
    add(write: Pending) {
      pending.set(write.id, [...(pending.get(write.id) ?? []), write]);
    },
    lags,
    pendingCount: () => pending.size,
    async finish(timeoutMs: number) {
      stopped = true;
      const deadline = Date.now() + timeoutMs;
      while (pending.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      const unseen = pending.size;
      pending.clear();
      await loop;
      return unseen;
    },
  };
}

async function main(): Promise<void> {
  loadInfraEnv();
  const databaseUrl = requireEnv('DATABASE_URL');
  const brokers = requireEnv('KAFKA_BROKERS').split(',');
  const suffix = Date.now().toString(36);
  const schemas = {
    command: `bench_lag_lc_${suffix}`,
    query: `bench_lag_lq_${suffix}`,
    statistics: `bench_lag_sp_${suffix}`,
  };
  const groups = { query: `bench-lag-lq-${suffix}`, statistics: `bench-lag-sp-${suffix}` };
  // Topics of the run's own: nothing it publishes reaches a running stack's consumers.
  const topics = await createPrivateTopics(brokers, 'lxbench');
  const issuer = await startTestTokenIssuer();
  const base = {
    ...process.env,
    ...issuer.env,
    ...topics.env,
    LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
  };
  const env = {
    command: { ...base, DATABASE_SCHEMA: schemas.command },
    query: { ...base, DATABASE_SCHEMA: schemas.query, PROJECTION_GROUP_ID: groups.query },
    statistics: { ...base, DATABASE_SCHEMA: schemas.statistics, PROJECTION_GROUP_ID: groups.statistics },
  };
  const bus = new KafkaEventBus(topics.kafka(`bench-lag-${suffix}`));
  const dbs = {
    query: new Client({ connectionString: databaseUrl, options: `-c search_path=${schemas.query}` }),
    statistics: new Client({ connectionString: databaseUrl, options: `-c search_path=${schemas.statistics}` }),
  };
  const servers: Server[] = [];
  try {
    await run([dist('location-query', 'cli.js'), 'migrate'], env.query);
    await run([dist('statistics-projection', 'cli.js'), 'migrate'], env.statistics);
    await dbs.query.connect();
    await dbs.statistics.connect();
    const readModelTopics = [
      TOPICS.locationEvents.name,
      TOPICS.locationGroupEvents.name,
      TOPICS.addressGroupEvents.name,
    ];
    const ends = (await Promise.all(readModelTopics.map((topic) => bus.partitionBounds(topic)))).flat();
    await positionAtLogEnd(dbs.query, groups.query, ends);
    await positionAtLogEnd(
      dbs.statistics,
      groups.statistics,
      ends.filter((end) => end.topic === TOPICS.locationEvents.name),
    );

    const [query, statistics] = await Promise.all([
      startServer([dist('location-query', 'main.js')], env.query, '/health/ready'),
      startServer([dist('statistics-projection', 'main.js')], env.statistics, '/health/ready'),
    ]);
    servers.push(query, statistics);
    const command =
      SOURCE === 'command'
        ? await startServer([dist('location-command', 'main.js')], env.command, '/health/ready')
        : undefined;
    if (command) servers.push(command);
    const versions = new Map<string, number>();
    /** Kafka mode: the event location-command would publish for a location at a version. */
    const publishDirect = async (writes: { id: string; n: number; create: boolean }[]) => {
      const now = new Date().toISOString();
      await bus.publish(
        TOPICS.locationEvents.name,
        writes.map(({ id, n, create }) => {
          const version = (versions.get(id) ?? 0) + 1;
          versions.set(id, version);
          const data = {
            id,
            createdAt: now,
            updatedAt: now,
            ...aBody(n),
            notes: `write ${n}`,
          };
          return {
            key: id,
            value: JSON.stringify({
              id: randomUUID(),
              type: create ? 'LOCATION_CREATED' : 'LOCATION_UPDATED',
              timestamp: now,
              source: 'lag-bench',
              data,
            }),
            headers: { [KAFKA_HEADERS.aggregateVersion]: String(version) },
          };
        }),
      );
    };
    const writeToken = await issuer.token({ scopes: ['locations:write'] });
    const readToken = await issuer.token({ scopes: ['locations:read'] });

    log(`creating ${SEED_LOCATIONS} locations (not timed)`);
    const ids: string[] = [];
    if (command === undefined) {
      const seeded = Array.from({ length: SEED_LOCATIONS }, (_, n) => ({ id: randomUUID(), n, create: true }));
      await publishDirect(seeded);
      ids.push(...seeded.map(({ id }) => id));
    }
    for (let start = 0; command !== undefined && start < SEED_LOCATIONS; start += 50) {
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          call(`${command.url}/operator/locations`, 'POST', writeToken, aBody(start + index)),
        ),
      );
      for (const reply of replies) {
        if (reply.status !== 201) throw new Error(`create: ${reply.status} ${reply.body}`);
        ids.push((JSON.parse(reply.body) as { id: string }).id);
      }
    }
    const queryWatch = watch(dbs.query, 'SELECT id, version FROM locations WHERE id = ANY($1::uuid[])');
    const statisticsWatch = watch(
      dbs.statistics,
      'SELECT location_id AS id, version FROM location_facts WHERE location_id = ANY($1::uuid[])',
    );
    for (const id of ids) {
      queryWatch.add({ id, version: 1, acknowledgedAt: performance.now() });
      statisticsWatch.add({ id, version: 1, acknowledgedAt: performance.now() });
    }
    while (queryWatch.pendingCount() + statisticsWatch.pendingCount() > 0)
      await new Promise((resolve) => setTimeout(resolve, 100));
    queryWatch.lags.length = 0;
    statisticsWatch.lags.length = 0;

    log(`writing at ${RATE}/s for ${SECONDS} s`);
    const httpLags: number[] = [];
    const writeLatencies: number[] = [];
    let inFlight = 0;
    let sent = 0;
    let notSent = 0;
    let failed = 0;
    let n = 0;
    const statuses = ['PLANNED', 'CONSTRUCTION', 'ACTIVE', 'INACTIVE'];
    const sampled: Promise<void>[] = [];
    /** Kafka mode: the writes of one tick go out as one producer request. */
    const publishTick = async (count: number) => {
      const writes = Array.from({ length: count }, () => {
        n += 1;
        const create = n % 5 === 0;
        return { id: create ? randomUUID() : ids[Math.floor(Math.random() * ids.length)]!, n, create };
      });
      const started = performance.now();
      await publishDirect(writes);
      const acknowledgedAt = performance.now();
      for (const { id, create } of writes) {
        writeLatencies.push(acknowledgedAt - started);
        if (create) ids.push(id);
        const pending = { id, version: versions.get(id)!, acknowledgedAt };
        queryWatch.add(pending);
        statisticsWatch.add(pending);
        if (Math.random() < 0.02) sample(pending);
      }
    };
    const sample = (pending: Pending) => {
      sampled.push(
        (async () => {
          for (let attempt = 0; attempt < 1_000; attempt += 1) {
            const read = await call(`${query.url}/locations/${pending.id}`, 'GET', readToken);
            if (read.status === 200 && versionOf(read.etag) >= pending.version) {
              httpLags.push(performance.now() - pending.acknowledgedAt);
              return;
            }
            await new Promise((resolve) => setTimeout(resolve, POLL_MS));
          }
        })(),
      );
    };
    const write = async () => {
      if (command === undefined) throw new Error('no location-command in kafka mode');
      n += 1;
      const started = performance.now();
      const create = n % 5 === 0;
      const id = ids[Math.floor(Math.random() * ids.length)]!;
      const reply = create
        ? await call(`${command.url}/operator/locations`, 'POST', writeToken, aBody(SEED_LOCATIONS + n))
        : await call(
            `${command.url}/operator/locations/${id}`,
            'PATCH',
            writeToken,
            { notes: `write ${n}`, fiberAccessDetails: { serviceability: { status: statuses[n % 4] } } },
            'application/merge-patch+json',
          );
      const acknowledgedAt = performance.now();
      if (reply.status !== 200 && reply.status !== 201) {
        failed += 1;
        return;
      }
      writeLatencies.push(acknowledgedAt - started);
      const written = create ? (JSON.parse(reply.body) as { id: string }).id : id;
      if (create) ids.push(written);
      const pending = { id: written, version: versionOf(reply.etag), acknowledgedAt };
      queryWatch.add(pending);
      statisticsWatch.add(pending);
      if (n % 50 === 0) sample(pending);
    };
    const started = performance.now();
    let issued = 0;
    while (performance.now() - started < SECONDS * 1000) {
      // Open loop: whatever is due by now goes out now, however long the previous tick took.
      const due = Math.floor((RATE * (performance.now() - started)) / 1000) - issued;
      issued += due;
      if (command === undefined && due > 0) {
        if (inFlight >= MAX_IN_FLIGHT) notSent += due;
        else {
          inFlight += 1;
          sent += due;
          void publishTick(due)
            .catch(() => (failed += due))
            .finally(() => (inFlight -= 1));
        }
      }
      for (let index = 0; command !== undefined && index < due; index += 1) {
        if (inFlight >= MAX_IN_FLIGHT) {
          notSent += 1;
          continue;
        }
        inFlight += 1;
        sent += 1;
        void write()
          .catch(() => (failed += 1))
          .finally(() => (inFlight -= 1));
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const elapsed = (performance.now() - started) / 1000;
    while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const [unseenQuery, unseenStatistics] = await Promise.all([
      queryWatch.finish(120_000),
      statisticsWatch.finish(120_000),
    ]);
    await Promise.all(sampled);
    const load = await loadAverage();

    const achieved = (sent - failed) / elapsed;
    process.stdout.write(
      `\nWrite-to-read lag (${SOURCE === 'command' ? 'writes through location-command' : 'events published straight to Kafka'}), ` +
        `target ${RATE} writes/s for ${SECONDS} s: ${sent - failed} writes acknowledged ` +
        `(${achieved.toFixed(0)}/s), ${notSent} not sent (${MAX_IN_FLIGHT} in flight), ${failed} failed; ` +
        `write latency p50 ${percentile(writeLatencies, 50).toFixed(1)} ms, p99 ${percentile(writeLatencies, 99).toFixed(1)} ms; ` +
        `${load}\n\n`,
    );
    const row = (label: string, lags: number[], unseen: number) => [
      label,
      lags.length,
      percentile(lags, 50).toFixed(0),
      percentile(lags, 99).toFixed(0),
      Math.max(...lags).toFixed(0),
      unseen,
    ];
    process.stdout.write(
      `${table(
        ['visible in', 'writes', 'p50 ms', 'p99 ms (target < 1000)', 'max ms', 'not seen within 120 s'],
        [
          row('location-query (locations row read by GET /locations/{id})', queryWatch.lags, unseenQuery),
          row('GET /locations/{id} itself (2 % sample)', httpLags, 0),
          row('statistics (facts and counters, same transaction)', statisticsWatch.lags, unseenStatistics),
        ],
      )}\n`,
    );
  } finally {
    for (const server of servers) await server.stop();
    agent.destroy();
    if (process.env['BENCH_KEEP'] !== '1') {
      for (const schema of Object.values(schemas)) {
        await dbs.query.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
      }
    }
    for (const db of Object.values(dbs)) await db.end().catch(() => undefined);
    await bus.close();
    await issuer.close();
    if (process.env['BENCH_KEEP'] !== '1') await topics.remove();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
