import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { digestColumnsOf, MIRROR_RESOURCES, MIRROR_TABLES, type MirrorResource } from '@lx/lx-sync';
import { SCOPES } from '@lx/contracts';
import { envOr, startPrivatePostgres, waitFor, type PrivatePostgres } from '@lx/testing';
import {
  type ApiClient,
  awaitSubscription,
  ClientRegistry,
  OperatorApi,
  versionOf,
  type WrittenLocation,
} from './support/api';
import { freeReceiverPort } from './support/receiver';

const REPO = resolve(__dirname, '../..');
const BIN = join(REPO, 'libs/lx-sync/bin/lx-sync.js');
const RECEIVER_HOST = envOr('E2E_RECEIVER_HOST', '127.0.0.1');

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * lx-sync, the reference client, as an RSP runs it against the stack through the ingress: `init` (a full export into
 * a SQLite mirror), `run` (webhooks, the change feed) while the operator writes, the receiver stopped for a while
 * (webhooks missed, caught up from the feed), the mirror's database corrupted (rows deleted, edited, added), `verify`
 * naming exactly the drifted ids, `repair` making the mirror equal to GET /locations/{id} (and the group reads) for
 * every location and group; then the same mirror in PostgreSQL, and the errors an RSP meets first.
 */
describe('lx-sync against the stack', () => {
  const dir = join(REPO, 'tmp', `lx-sync-${randomUUID().slice(0, 8)}`);
  const database = join(dir, 'mirror.db');
  let registry: ClientRegistry;
  let operator: OperatorApi;
  let rsp: ApiClient;
  let env: NodeJS.ProcessEnv;
  let runner: { process: ChildProcess; output: () => string } | undefined;
  let port: number;

  /** One command, as an RSP runs it from the repository root after `npm ci`: `npx lx-sync …`. */
  const lxSync = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    new Promise<Outcome>((done) => {
      execFile(
        'npx',
        ['--no-install', 'lx-sync', ...args, '--no-progress'],
        { cwd: REPO, env: { ...env, ...extra }, timeout: 240_000, maxBuffer: 1 << 26 },
        (error, stdout, stderr) =>
          done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
      );
    });

  const metric = async (name: string): Promise<number> => {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const line = text.split('\n').find((each) => each.startsWith(name));
    return line === undefined ? 0 : Number(line.split(' ').pop());
  };

  const startRun = async () => {
    const child = spawn(process.execPath, [BIN, 'run'], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    runner = { process: child, output: () => output };
    await waitFor(
      'lx-sync run to be healthy (listening, caught up with the feed)',
      async () => {
        if (child.exitCode !== null) throw new Error(`lx-sync run exited with ${child.exitCode}: ${output}`);
        return (await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined))?.status === 200;
      },
      60_000,
    );
  };

  const stopRun = async () => {
    const child = runner!.process;
    runner = undefined;
    if (child.exitCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  };

  /** Opens the mirror's SQLite file beside lx-sync (WAL: readers see committed transactions, a writer waits its turn). */
  const withMirror = <T>(work: (db: Database.Database) => T): T => {
    const db = new Database(database, { timeout: 10_000 });
    try {
      return work(db);
    } finally {
      db.close();
    }
  };

  const name = `e2e lx-sync ${randomUUID().slice(0, 8)}`;
  let groupId: string;
  let doomedGroup: string;
  const created: WrittenLocation[] = [];

  beforeAll(async () => {
    await mkdir(dir, { recursive: true });
    registry = new ClientRegistry(name);
    operator = new OperatorApi(await registry.operator());
    // The locations first, the RSP after: their events are not delivered to an endpoint that does not listen yet
    // (refused deliveries would pause the endpoint's cursor: webhooks.md, endpoint backoff).
    groupId = await operator.createLocationGroup(name);
    doomedGroup = await operator.createAddressGroup(`${name} doomed`);
    // A live group of each kind, so every table of the mirror has rows to compare (a fresh deployment has no other).
    await operator.createAddressGroup(`${name} MDU`);
    for (let i = 0; i < 12; i++) {
      created.push(
        await operator.createLocation({
          locationGroupId: i % 2 === 0 ? groupId : undefined,
          geography: { country: 'AU', region: 'VIC', locality: `Town ${i}`, postalCode: '3000' },
          coordinates: { latitude: -37.8 - i / 100, longitude: 144.9 },
          fiberAccessDetails: { serviceability: { status: 'PLANNED' } },
        }),
      );
    }
    port = await freeReceiverPort();
    // The dispatcher posts to {webhookUrl}/locations/events: lx-sync's receiver path.
    const { client, registered } = await registry.registration(
      'RSP',
      [SCOPES.locationsRead],
      `http://${RECEIVER_HOST}:${port}`,
    );
    rsp = client;
    env = {
      PATH: process.env.PATH,
      LX_SYNC_API_URL: registry.baseUrl,
      LX_SYNC_CLIENT_ID: registered.clientId,
      LX_SYNC_CLIENT_SECRET: registered.clientSecret,
      LX_SYNC_DATABASE: database,
      LX_SYNC_WEBHOOK_SECRET: registered.webhookSecret,
      LX_SYNC_LISTEN_PORT: String(port),
      // The feed at start (catching up) and then not again within the test: the changes made while lx-sync runs
      // can only come by webhook.
      LX_SYNC_FEED_INTERVAL_SECONDS: '600',
      LX_SYNC_CHECK_INTERVAL_SECONDS: '3600',
    };
  }, 90_000);

  afterAll(async () => {
    if (runner !== undefined) await stopRun();
    await registry?.disableAll();
    await rm(dir, { recursive: true, force: true });
  });

  it('mirrors exactly: init, run through changes and downtime, verify finds each drifted id, repair mends them', async () => {
    // init: the export (with versions and groups) and the feed.
    const init = await lxSync(['init']);
    expect(init).toMatchObject({ code: 0 });
    expect(init.stderr).toMatch(/init: \d+ rows from the export of \d{4}-/);
    expect(
      withMirror((db) => db.prepare('SELECT version FROM locations WHERE id = ?').get(created[3]!.location.id)),
    ).toEqual({ version: created[3]!.version });
    expect((await lxSync(['init'])).stderr).toMatch(/ALREADY_INITIALISED/);

    // run: webhooks keep the mirror while the operator writes (the feed is not read again meanwhile).
    await startRun();
    await awaitSubscription(rsp);
    const applied = () => metric('lx_sync_webhooks_total{outcome="applied"}');
    const before = await applied();
    const patched = await operator.patchLocation(created[0]!.location.id, { notes: 'changed while lx-sync runs' });
    const renamed = await operator.patchGroup('location-groups', groupId, { name: `${name} renamed` });
    const fresh = await operator.createLocation({
      geography: { country: 'AU', region: 'VIC', locality: 'New', postalCode: '3001' },
      coordinates: { latitude: -37.7, longitude: 145 },
    });
    await waitFor('the three webhooks to be applied', async () => (await applied()) >= before + 3, 60_000).catch(
      (error: Error) => {
        throw new Error(`${error.message}; lx-sync output: ${runner?.output()}`);
      },
    );
    const version = (table: string, id: string) =>
      withMirror((db) => db.prepare(`SELECT version FROM ${table} WHERE id = ?`).get(id));
    expect(version('locations', patched.location.id)).toEqual({ version: patched.version });
    expect(version('location_groups', groupId)).toEqual({ version: renamed.version });
    expect(version('locations', fresh.location.id)).toEqual({ version: fresh.version });

    // A bad signature is refused by the running receiver.
    const forged = await fetch(`http://127.0.0.1:${port}/locations/events`, {
      method: 'POST',
      headers: {
        'webhook-id': 'x',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAA',
      },
      body: '{}',
    });
    expect(forged.status).toBe(401);

    // The receiver down for a while: the changes made meanwhile come from the feed when it is back.
    await stopRun();
    const missed = [
      await operator.patchLocation(created[1]!.location.id, { notes: 'missed webhook' }),
      await operator.patchLocation(created[2]!.location.id, { notes: 'missed webhook' }),
    ];
    await operator.deleteGroup('address-groups', doomedGroup);
    await startRun();
    // The feed's catch-up at start brings them (or a retried webhook, should one arrive first).
    await waitFor(
      'the missed changes to be applied',
      async () =>
        (await metric('lx_sync_feed_applied_total')) + (await metric('lx_sync_webhooks_total{outcome="applied"}')) >= 3,
      60_000,
    );
    await stopRun();
    for (const { location, version } of missed) {
      expect(withMirror((db) => db.prepare('SELECT version FROM locations WHERE id = ?').get(location.id))).toEqual({
        version,
      });
    }
    expect(withMirror((db) => db.prepare('SELECT deleted FROM address_groups WHERE id = ?').get(doomedGroup))).toEqual({
      deleted: 1,
    });

    // Verify finds nothing on a healthy mirror.
    const clean = await lxSync(['verify', '--json']);
    expect({ code: clean.code, drifted: (JSON.parse(clean.stdout) as { drifted: unknown[] }).drifted }).toEqual({
      code: 0,
      drifted: [],
    });

    // The mirror's database corrupted: rows deleted, edited (another version), added, a group lost.
    const [deleted, edited] = [created[4]!.location.id, created[5]!.location.id];
    const added = randomUUID();
    withMirror((db) => {
      db.prepare('DELETE FROM locations WHERE id = ?').run(deleted);
      db.prepare('UPDATE locations SET version = version + 7, hash = ?, body = ? WHERE id = ?').run(
        digestColumnsOf(edited, created[5]!.version + 7).hash,
        '{"edited":true}',
        edited,
      );
      const { bucket, hash } = digestColumnsOf(added, 1);
      db.prepare('INSERT INTO locations (id, version, deleted, bucket, hash, body) VALUES (?, 1, 0, ?, ?, ?)').run(
        added,
        bucket,
        hash,
        JSON.stringify({ id: added }),
      );
      db.prepare('DELETE FROM location_groups WHERE id = ?').run(groupId);
    });
    const drift = await lxSync(['verify', '--json']);
    expect(drift.code).toBe(1);
    const report = JSON.parse(drift.stdout) as { drifted: { resource: string; id: string }[]; requests: number };
    expect(report.drifted.map(({ resource, id }) => `${resource} ${id}`).sort()).toEqual(
      [`locations ${deleted}`, `locations ${edited}`, `locations ${added}`, `locationGroups ${groupId}`].sort(),
    );
    expect(report.requests).toBeLessThan(60);
    expect((await lxSync(['verify'])).stdout).toContain(`locations\t${added}\textra`);

    // Repair fetches exactly those ids; the mirror is then equal to the API, row by row.
    const repaired = await lxSync(['repair']);
    expect(repaired).toMatchObject({ code: 0 });
    expect(repaired.stderr).toMatch(/repair: 3 written, 1 removed/);
    expect((await lxSync(['verify'])).code).toBe(0);
    for (const resource of Object.keys(MIRROR_TABLES) as MirrorResource[]) {
      const rows = withMirror(
        (db) =>
          db.prepare(`SELECT id, version, body FROM ${MIRROR_TABLES[resource]} WHERE deleted = 0`).all() as {
            id: string;
            version: number;
            body: string;
          }[],
      );
      expect(rows.length).toBeGreaterThan(0);
      for (let start = 0; start < rows.length; start += 16) {
        await Promise.all(
          rows.slice(start, start + 16).map(async (row) => {
            const reply = await rsp.get(`${MIRROR_RESOURCES[resource].itemPath}/${row.id}`);
            expect({
              id: row.id,
              status: reply.status,
              version: versionOf(reply.headers.get('etag')),
              body: reply.body,
            }).toEqual({ id: row.id, status: 200, version: row.version, body: JSON.parse(row.body) as unknown });
          }),
        );
      }
    }
  }, 600_000);

  it('keeps the same mirror in PostgreSQL', async () => {
    let postgres: PrivatePostgres | undefined;
    try {
      postgres = await startPrivatePostgres();
      const pg = { LX_SYNC_DATABASE: postgres.url };
      const exportsOfClient = async () =>
        ((await rsp.get('/locations/exports?limit=1')).body as { pagination: { total: number } }).pagination.total;
      const exportsBefore = await exportsOfClient();
      // An init killed while its export is being generated (the first line it prints, after it stored the export's id;
      // it then polls once a second, so it cannot have finished) goes on with that export when run again.
      const stopped = spawn(process.execPath, [BIN, 'init'], {
        cwd: REPO,
        env: { ...env, ...pg },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let progress = '';
      await new Promise<void>((exporting, failed) => {
        stopped.stderr.on('data', (chunk: Buffer) => {
          progress += chunk.toString();
          if (/ export\n/.test(progress)) exporting();
        });
        stopped.once('exit', (code) => failed(new Error(`init ended (${code}) before its export: ${progress}`)));
      });
      const killed = new Promise((done) => stopped.once('exit', done));
      stopped.kill('SIGKILL');
      await killed;
      const resumed = await lxSync(['init'], pg);
      expect(resumed).toMatchObject({ code: 0 });
      expect(await exportsOfClient()).toBe(exportsBefore + 1);
      const verified = await lxSync(['verify', '--json'], pg);
      expect({ code: verified.code, drifted: (JSON.parse(verified.stdout) as { drifted: unknown[] }).drifted }).toEqual(
        {
          code: 0,
          drifted: [],
        },
      );
      const status = JSON.parse((await lxSync(['status'], pg)).stdout) as {
        database: string;
        rows: { locations: number };
      };
      expect(status.database).toBe('postgres');
      expect(status.rows.locations).toBeGreaterThan(12);
    } finally {
      await postgres?.destroy();
    }
  }, 300_000);

  it('says clearly what is wrong: bad credentials, an unreachable API, a bad configuration', async () => {
    const fresh = { LX_SYNC_DATABASE: join(dir, 'errors.db') };
    expect(await lxSync(['verify'], fresh)).toMatchObject({
      code: 3,
      stderr: expect.stringMatching(/NOT_INITIALISED/),
    });
    const refused = await lxSync(['init'], { ...fresh, LX_SYNC_CLIENT_SECRET: 'wrong' });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/AUTH_FAILED: the API refused the client credentials .*LX_SYNC_CLIENT_SECRET/);
    const closed = await freeReceiverPort(); // nothing listens there any more
    const unreachable = await lxSync(['init'], { ...fresh, LX_SYNC_API_URL: `http://${RECEIVER_HOST}:${closed}` });
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toMatch(
      new RegExp(`API_UNREACHABLE: cannot reach the API at http://${RECEIVER_HOST}:${closed}: ECONNREFUSED`),
    );
    const misconfigured = await lxSync(['verify'], { ...fresh, LX_SYNC_API_URL: 'not a url' });
    expect(misconfigured.code).toBe(2);
    expect(misconfigured.stderr).toMatch(/CONFIG_INVALID: .*apiUrl \(LX_SYNC_API_URL\) must be an http\(s\) URL/);
  });
});
