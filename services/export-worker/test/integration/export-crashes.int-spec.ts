import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { TOPICS } from '@lx/contracts';
import { aLocation } from '@lx/domain/testing';
import {
  type EventLog,
  freePort,
  type PrivateMinio,
  REPO_ROOT,
  requireEnv,
  testKafka,
  spawnTs,
  startEventLog,
  startPrivateMinio,
  startTestTokenIssuer,
  type TsProcess,
  uniqueSuffix,
  waitFor,
} from '@lx/testing';
import {
  type ExportWorkerHarness,
  exportWorkerEnv,
  startExportWorker,
  startPeers,
} from '../support/export-worker-harness';

const MAIN = join(REPO_ROOT, 'services/export-worker/src/main.ts');
const LOCATIONS = 300;

const manyLocations = () =>
  Array.from({ length: LOCATIONS }, (_, index) => aLocation({ id: randomUUID(), notes: `location ${index}` }));

/** A replica of the export worker killed with SIGKILL in the middle of an export, against real Postgres, Kafka, MinIO. */
describe('export worker killed mid-export', () => {
  const schema = `ew_crash_${uniqueSuffix()}`;
  const children: TsProcess[] = [];
  let db: Client;
  let events: EventLog;
  let cleanup: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    db = new Client({ connectionString: requireEnv('DATABASE_URL'), options: `-c search_path=${schema}` });
    await db.connect();
  }, 90_000);

  afterAll(async () => {
    for (const child of children) child.process.kill('SIGKILL');
    await Promise.all(children.map((child) => child.exited));
    for (const step of cleanup) await step().catch(() => undefined);
    await events?.close();
    await db?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db?.end();
  });

  it('another replica takes the export over when the lease lapses, and it completes exactly once', async () => {
    const issuer = await startTestTokenIssuer();
    const peers = await startPeers(issuer);
    cleanup = [() => peers.close(), () => issuer.close()];
    peers.locations.push(...manyLocations());
    peers.lineDelayMs = 20;

    const start = async () => {
      const port = await freePort();
      const child = spawnTs(
        MAIN,
        exportWorkerEnv(schema, issuer, peers, {
          HTTP_HOST: '127.0.0.1',
          HTTP_PORT: String(port),
          EXPORT_LEASE_SECONDS: '5',
        }),
      );
      children.push(child);
      const url = `http://127.0.0.1:${port}`;
      await waitFor(
        `export worker ready on ${url}`,
        async () => (await fetch(`${url}/health/ready`)).status === 200,
        60_000,
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${child.output()}`);
      });
      return { child, url };
    };

    const first = await start();
    events = await startEventLog(testKafka(), [TOPICS.exportEvents.name]);
    const token = await issuer.token({ clientId: 'rsp-crash', scopes: ['locations:read'] });
    const accepted = await fetch(`${first.url}/locations/exports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ format: 'json' }),
    });
    expect(accepted.status).toBe(202);
    const { requestId } = (await accepted.json()) as { requestId: string };
    const row = async () =>
      (
        await db.query('SELECT status, attempts, rows_written, lease_owner FROM export_requests WHERE id = $1', [
          requestId,
        ])
      ).rows[0] as { status: string; attempts: number; rows_written: string; lease_owner: string | null };

    // Mid-export: the lease holder has reported progress, and the file is not complete.
    await waitFor('progress of the first replica', async () => Number((await row()).rows_written) > 0, 30_000);
    expect((await row()).status).toBe('PENDING');
    first.child.process.kill('SIGKILL');
    expect((await first.child.exited).signal).toBe('SIGKILL');

    peers.lineDelayMs = 0;
    const second = await start();
    await waitFor(
      'the export to complete on the second replica',
      async () => (await row()).status === 'COMPLETED',
      60_000,
    );
    expect(await row()).toMatchObject({ status: 'COMPLETED', attempts: 2, lease_owner: null });

    // Exactly one outcome event was committed, and it reached Kafka.
    const { rows } = await db.query('SELECT count(*)::int AS n FROM outbox WHERE message_key = $1', [requestId]);
    expect(rows[0].n).toBe(1);
    const received = await events.waitFor(1, [requestId]);
    expect(new Set(received.map((message) => message.event.id)).size).toBe(1);
    expect(received[0]!.event.type).toBe('EXPORT_COMPLETED');

    const status = (await (
      await fetch(`${second.url}/locations/exports/${requestId}`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { exportUrl: string; totalCount: number };
    expect(status.totalCount).toBe(LOCATIONS);
    const file = (await (await fetch(status.exportUrl)).json()) as { locations: { id: string }[] };
    expect(file.locations.map((location) => location.id)).toEqual(peers.locations.map((l) => l.id).sort());
  }, 180_000);
});

/** MinIO stopped while an export is being generated. */
describe('object storage down during generation', () => {
  let minio: PrivateMinio;
  let service: ExportWorkerHarness;

  beforeAll(async () => {
    minio = await startPrivateMinio();
    service = await startExportWorker({ ...minio.env, EXPORT_MAX_ATTEMPTS: '2', EXPORT_LEASE_SECONDS: '5' });
    service.peers.locations.push(...manyLocations());
  }, 120_000);

  afterAll(async () => {
    await service?.close();
    await minio?.destroy();
  });

  it('is retried, then FAILED with EXPORT_GENERATION_FAILED and its event; once MinIO is back, exports complete', async () => {
    service.peers.lineDelayMs = 20;
    const requestId = (await service.request('POST', '/locations/exports', { body: { format: 'csv' } })).body
      .requestId as string;
    await waitFor(
      'generation under way',
      async () =>
        Number(
          (await service.db.query('SELECT rows_written FROM export_requests WHERE id = $1', [requestId])).rows[0]
            .rows_written,
        ) > 0,
      30_000,
    );
    await minio.stop();
    service.peers.lineDelayMs = 0;

    const failed = await service.settled(requestId, undefined, 60_000);
    expect(failed.status).toBe('FAILED');
    expect(failed.error.code).toBe('EXPORT_GENERATION_FAILED');
    const { rows } = await service.db.query('SELECT attempts FROM export_requests WHERE id = $1', [requestId]);
    expect(rows[0].attempts).toBe(2);
    const [event] = await service.events.waitFor(1, [requestId]);
    expect(event!.event).toMatchObject({
      type: 'EXPORT_FAILED',
      data: { notification: { requestId, status: 'FAILED', error: { code: 'EXPORT_GENERATION_FAILED' } } },
    });

    await minio.start();
    const again = (await service.request('POST', '/locations/exports', { body: { format: 'csv' } })).body
      .requestId as string;
    expect((await service.settled(again, undefined, 60_000)).status).toBe('COMPLETED');
  }, 180_000);
});
