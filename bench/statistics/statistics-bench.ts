/**
 * GET /locations/statistics of statistics-projection at 1,000,000 locations: unfiltered, single filters and the
 * combinations that match most locations (a country, a region or a location group holding 55 % with a date range
 * of a year, each path of the planner), each beside the naive baseline measured in the same run: `SELECT count(*) …
 * GROUP BY` over the same per-location rows for every request.
 *
 *   bash bench/statistics/run.sh   (BENCH_SECONDS per query and target, default 10; BENCH_ROWS, default 1e6;
 *                                   BENCH_NAIVE=check: the baseline's answers are compared but not timed (10M);
 *                                   BENCH_RESULT_FILE: the results as JSON too)
 *
 * Setup (not timed): a fresh schema migrated by the service's own CLI; 1,000,000 facts with a realistic spread
 * (one country mostly, 20 regions, 2,000 localities, 20,000 postal codes, one large location group holding 55 % and
 * 499 small ones 15 %, MDUs for 15 %, ACTIVE the commonest status, 10 % without status, two years of updatedAt)
 * written with COPY instead of replaying events (seconds instead of minutes; the read path does not care how the rows
 * got there); the counters and the rollups computed from those facts with GROUP BY (the rollups by the migration's own
 * backfill), as the projection would have maintained them. Each query is checked to give the same counts from both
 * before it is timed. autocannon with 4 connections; loopback only; the service runs on topics of the run's own (a
 * topic prefix, deleted at the end). BENCH_KEEP=1 keeps the schema and the topics.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from 'pg';
import { TOPICS } from '@lx/contracts';
import { KafkaEventBus } from '@lx/messaging';
import { BACKFILL_ROLLUPS } from '../../services/statistics-projection/src/database/migrations/1797379200000-AddStatisticsRollups';
import { loadInfraEnv, REGISTER_SWC, REPO_ROOT, requireEnv } from '../../libs/testing/src/infra-env';
import { createPrivateTopics } from '../../libs/testing/src/kafka-topics';
import { startTestTokenIssuer } from '../../libs/testing/src/token-issuer';
import {
  copyInto,
  copyValue,
  generator,
  loadAverage,
  log,
  measure,
  positionAtLogEnd,
  run,
  type Server,
  startServer,
  table,
} from '../location-query/bench-support';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
/** `check`: the naive baseline's answers are compared, its latency is not measured (at 10M each takes seconds). */
const NAIVE = process.env['BENCH_NAIVE'] ?? 'measure';
const RESULT_FILE = process.env['BENCH_RESULT_FILE'];
const ROWS = Number(process.env['BENCH_ROWS'] ?? 1_000_000);
const CONNECTIONS = 4;
const DIST = join(REPO_ROOT, 'dist/services/statistics-projection/services/statistics-projection/src');
const DAY = 86_400_000;

/** Weighted like a network in service: mostly ACTIVE, some still being built, a few gone; '' = no serviceability. */
const STATUSES = [
  ...Array<string>(55).fill('ACTIVE'),
  ...Array<string>(15).fill('PLANNED'),
  ...Array<string>(10).fill('CONSTRUCTION'),
  ...Array<string>(5).fill('INACTIVE'),
  ...Array<string>(3).fill('CANCELLED'),
  ...Array<string>(2).fill('RETIRED'),
  ...Array<string>(10).fill(''),
];

/** 55 % in the first (large) group, 15 % in one of the others, 30 % in none. */
function grouped(draw: number, groups: string[], random: ReturnType<typeof generator>): string | null {
  if (draw < 0.55) return groups[0]!;
  return draw < 0.7 ? random.pick(groups.slice(1)) : null;
}

function* factRows(count: number, groups: string[], mdus: string[], now: number): Generator<string> {
  const random = generator(7);
  for (let n = 0; n < count; n += 1) {
    const shape = random.next();
    const locality = n % 2000;
    const canadian = locality >= 1900;
    const status = random.pick(STATUSES);
    yield [
      randomUUID(),
      1,
      status === '' ? null : status,
      shape < 0.9,
      shape >= 0.3,
      grouped(random.next(), groups, random),
      random.next() < 0.15 ? random.pick(mdus) : null,
      canadian ? 'CA' : 'US',
      canadian ? ['ON', 'QC', 'BC'][locality % 3]! : `R${String(locality % 20).padStart(2, '0')}`,
      `Town ${locality}`,
      String(80_000 + (n % 20_000)),
      new Date(now - Math.floor(random.next() * 730 * DAY)).toISOString(),
    ]
      .map(copyValue)
      .join('\t');
  }
}

async function main(): Promise<void> {
  loadInfraEnv();
  const databaseUrl = requireEnv('DATABASE_URL');
  const brokers = requireEnv('KAFKA_BROKERS').split(',');
  const suffix = Date.now().toString(36);
  const schema = `bench_sp_${suffix}`;
  const groupId = `bench-sp-${suffix}`;
  const topics = await createPrivateTopics(brokers, 'lxbench');
  const issuer = await startTestTokenIssuer();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...issuer.env,
    ...topics.env,
    DATABASE_SCHEMA: schema,
    PROJECTION_GROUP_ID: groupId,
    LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
    // One client drives every query: under the default quota it would be refused after 1,000 requests in 10 s.
    RATE_LIMITS: 'RSP=off',
  };
  const db = new Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
  const bus = new KafkaEventBus(topics.kafka(`bench-${suffix}`));
  const servers: Server[] = [];
  try {
    log(`migrating ${schema}`);
    await run([join(DIST, 'cli.js'), 'migrate'], env);
    await db.connect();
    await positionAtLogEnd(db, groupId, await bus.partitionBounds(TOPICS.locationEvents.name));
    // The trigger keeps the rollups for the previous release's writers during an upgrade; the COPY below is no such
    // writer (it would add two rollup upserts per row): the rollups are filled after it, as the migration does.
    await db.query('DROP TRIGGER location_facts_rollups_trg ON location_facts');

    log(`loading ${ROWS.toLocaleString('en-US')} facts with COPY`);
    const now = Date.now();
    const groups = Array.from({ length: 500 }, () => randomUUID());
    const mdus = Array.from({ length: 20_000 }, () => randomUUID());
    await copyInto(
      databaseUrl,
      `${schema}.location_facts`,
      [
        'location_id',
        'version',
        'status',
        'has_address',
        'has_coordinates',
        'location_group_id',
        'address_group_id',
        'country',
        'region',
        'locality',
        'postal_code',
        'updated_at',
      ],
      factRows(ROWS, groups, mdus, now),
    );
    const cells = `coalesce(status, ''), has_address, has_coordinates, location_group_id IS NOT NULL`;
    await db.query(`INSERT INTO location_counters SELECT ${cells}, count(*) FROM location_facts GROUP BY 1, 2, 3, 4`);
    await db.query(
      `INSERT INTO location_geo_counters SELECT country, region, ${cells}, count(*) FROM location_facts GROUP BY 1, 2, 3, 4, 5, 6`,
    );
    await db.query(
      `INSERT INTO location_day_counters SELECT (updated_at AT TIME ZONE 'UTC')::date, ${cells}, count(*)
         FROM location_facts GROUP BY 1, 2, 3, 4, 5`,
    );
    log('filling the rollups (the backfill of the migration)');
    await db.query(BACKFILL_ROLLUPS);
    log('VACUUM ANALYZE');
    await db.query('VACUUM ANALYZE');
    const { rows: sizes } = await db.query<{ table: string; size: string }>(
      `SELECT c.relname AS table, pg_size_pretty(pg_total_relation_size(c.oid)) AS size
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema() AND c.relkind = 'r' ORDER BY pg_total_relation_size(c.oid) DESC`,
    );
    log(`sizes: ${sizes.map(({ table: name, size }) => `${name} ${size}`).join(', ')}`);

    const service = await startServer([join(DIST, 'main.js')], env, '/health/ready');
    const baseline = await startServer(
      ['-r', REGISTER_SWC, join(REPO_ROOT, 'bench/statistics/naive-baseline.ts')],
      env,
      '/ready',
    );
    servers.push(service, baseline);
    const token = await issuer.token({ scopes: ['locations:read'] });
    const headers = { authorization: `Bearer ${token}` };
    const ago = (days: number) => new Date(now - days * DAY).toISOString();
    const [week, month, halfYear, year] = [ago(7), ago(30), ago(182.5), ago(365)];
    const large = groups[0]!;
    const queries: [string, string][] = [
      ['unfiltered', ''],
      ['status=ACTIVE', 'status=ACTIVE'],
      ['hasCoordinates=false', 'hasCoordinates=false'],
      ['locationGroupId (a small one)', `locationGroupId=${groups[7]}`],
      ['locationGroupId (the large one, 55 %)', `locationGroupId=${large}`],
      ['postalCode (one of 20,000)', 'postalCode=80123'],
      ['modifiedSince 7 days ago', `modifiedSince=${week}`],
      ['country + region + status (2)', 'country=US&region=R03&status=ACTIVE,INACTIVE'],
      ['small group + status + hasAddress', `locationGroupId=${groups[11]}&status=ACTIVE&hasAddress=true`],
      ['modifiedSince 1 year ago (~50 %)', `modifiedSince=${year}`],
      ['modifiedSince 1 year ago + status', `modifiedSince=${year}&status=ACTIVE`],
      ['locality + status + hasLocationGroup', 'locality=Town 42&status=ACTIVE&hasLocationGroup=true'],
      ['locality + modifiedSince 1 year ago', `locality=Town 42&modifiedSince=${year}`],
      ['region + modifiedSince 1 year ago', `region=R05&modifiedSince=${year}`],
      ['country + modifiedSince 1 year ago', `country=US&modifiedSince=${year}`],
      [
        'country + region + 1 year to 30 days ago + status',
        `country=US&region=R05&modifiedSince=${year}&modifiedBefore=${month}&status=ACTIVE,PLANNED`,
      ],
      ['large group + modifiedSince 1 year ago', `locationGroupId=${large}&modifiedSince=${year}`],
      ['large group + country', `locationGroupId=${large}&country=US`],
      [
        'large group + country + modifiedBefore 6 months ago + hasAddress',
        `locationGroupId=${large}&country=US&modifiedBefore=${halfYear}&hasAddress=true`,
      ],
      [
        'every filter',
        `status=ACTIVE&modifiedSince=${year}&modifiedBefore=${month}&hasAddress=true&hasCoordinates=true` +
          `&hasLocationGroup=true&locationGroupId=${large}&addressGroupId=${mdus[3]}&country=US&region=R03` +
          `&locality=Town 43&postalCode=80043`,
      ],
    ];

    const rows: (string | number)[][] = [];
    const results: {
      label: string;
      matching: number;
      service: Awaited<ReturnType<typeof measure>>;
      naive: Awaited<ReturnType<typeof measure>> | undefined;
    }[] = [];
    for (const [label, query] of queries) {
      const path = `/locations/statistics${query === '' ? '' : `?${query.replace(/ /g, '%20')}`}`;
      const strip = (body: object) => JSON.stringify({ ...body, queryTimestamp: undefined });
      const [answer, naive] = await Promise.all([
        fetch(`${service.url}${path}`, { headers }).then(
          (response) => response.json() as Promise<{ totalCount: number }>,
        ),
        fetch(`${baseline.url}${path}`).then((response) => response.json() as Promise<{ totalCount: number }>),
      ]);
      if (strip(answer) !== strip(naive)) throw new Error(`${label}: service and baseline disagree`);
      log(`${label}: ${answer.totalCount} locations`);
      await measure({ url: service.url, connections: CONNECTIONS, seconds: 2, path: () => path, headers });
      const measured = await measure({
        url: service.url,
        connections: CONNECTIONS,
        seconds: SECONDS,
        path: () => path,
        headers,
      });
      const base =
        NAIVE === 'check'
          ? undefined
          : await measure({ url: baseline.url, connections: CONNECTIONS, seconds: SECONDS, path: () => path });
      for (const result of [measured, base]) {
        if (result !== undefined && (result.non2xx > 0 || result.errors > 0))
          throw new Error(`${label}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      }
      results.push({ label, matching: answer.totalCount, service: measured, naive: base });
      rows.push([
        label,
        answer.totalCount.toLocaleString('en-US'),
        measured.p50,
        measured.p99,
        measured.requestsPerSecond.toFixed(0),
        base?.p50 ?? '—',
        base?.p99 ?? '—',
        base?.requestsPerSecond.toFixed(0) ?? '—',
      ]);
    }
    const worst = results.reduce((a, b) => (b.service.p99 > a.service.p99 ? b : a));
    const load = await loadAverage();
    process.stdout.write(
      `\nGET /locations/statistics, ${ROWS.toLocaleString('en-US')} locations, autocannon ${CONNECTIONS} connections, ` +
        `${SECONDS} s per query and target; service LOG_LEVEL=${env['LOG_LEVEL']}; ${load}\n` +
        `targets: unfiltered p99 < 5 ms, filtered p99 < 50 ms\n\n`,
    );
    process.stdout.write(
      `${table(
        [
          'query',
          'matching',
          'service p50 ms',
          'service p99 ms',
          'service req/s',
          'naive p50 ms',
          'naive p99 ms',
          'naive req/s',
        ],
        rows,
      )}\n\nworst: ${worst.label}, p50 ${worst.service.p50} ms, p99 ${worst.service.p99} ms\n`,
    );
    if (RESULT_FILE !== undefined) {
      await writeFile(RESULT_FILE, JSON.stringify({ rows: ROWS, load, results, worst: worst.label }, null, 2));
    }
  } finally {
    for (const server of servers) await server.stop();
    if (process.env['BENCH_KEEP'] !== '1')
      await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db.end().catch(() => undefined);
    await bus.close();
    await issuer.close();
    if (process.env['BENCH_KEEP'] !== '1') await topics.remove();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
