import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { SCOPES } from '@lx/contracts';
import { envOr, waitFor } from '@lx/testing';
import { ClientRegistry, OperatorApi } from './support/api';
import { freeReceiverPort, type Receipt, startReceiver, stopReceiver } from './support/receiver';

const run = promisify(execFile);
const REPO = resolve(__dirname, '../..');
const GUIDE = join(REPO, 'docs/rsp-guide.md');
const RECEIVER_HOST = envOr('E2E_RECEIVER_HOST', '127.0.0.1');

/** The guide's code blocks that name a file (`<!-- file: NAME -->` right before the fence), by file name. */
export function snippetsOf(markdown: string): Map<string, string> {
  const snippets = new Map<string, string>();
  for (const match of markdown.matchAll(/<!-- file: (\S+) -->\s*\n```\w*\n([\s\S]*?)\n```/g)) {
    if (snippets.has(match[1]!)) throw new Error(`the guide names ${match[1]} twice`);
    snippets.set(match[1]!, `${match[2]!}\n`);
  }
  return snippets;
}

/**
 * The RSP guide, run as an RSP would run it: every named code block of docs/rsp-guide.md is written to a folder and
 * executed against the stack through the ingress — the token call, the export chain into a SQLite copy, the webhook
 * verification in TypeScript, Python and Java against a real delivery's raw body, the Python receiver keeping the
 * copy, the change feed, and the daily statistics check, which must report the copy in sync and then catch a drift.
 */
describe('the RSP guide (docs/rsp-guide.md), every snippet run against the stack', () => {
  const dir = join(REPO, 'tmp', `rsp-guide-${randomUUID().slice(0, 8)}`);
  let registry: ClientRegistry;
  let operator: OperatorApi;
  let env: NodeJS.ProcessEnv;
  let receiverProcess: ChildProcess | undefined;
  let capture: Awaited<ReturnType<typeof startReceiver>>;
  let captureSecret: string;

  const python = (file: string, ...args: string[]) =>
    run('python3', [join(dir, file), ...args], { cwd: dir, env, timeout: 240_000, maxBuffer: 1 << 24 });
  const mirrorRow = async (id: string) => {
    const { stdout } = await run(
      'python3',
      [
        '-c',
        'import json,os,sqlite3,sys; r=sqlite3.connect(os.environ["LX_MIRROR_DB"]).execute("SELECT version, body FROM locations WHERE id=?", (sys.argv[1],)).fetchone(); print(json.dumps(r and {"version": r[0], "body": json.loads(r[1])}))',
        id,
      ],
      { env },
    );
    return JSON.parse(stdout) as { version: number | null; body: unknown } | null;
  };
  const mirrorGroup = async (id: string) => {
    const { stdout } = await run(
      'python3',
      [
        '-c',
        'import json,os,sqlite3,sys; r=sqlite3.connect(os.environ["LX_MIRROR_DB"]).execute("SELECT version, deleted, body FROM groups WHERE id=?", (sys.argv[1],)).fetchone(); print(json.dumps(r and {"version": r[0], "deleted": r[1], "body": json.loads(r[2])}))',
        id,
      ],
      { env },
    );
    return JSON.parse(stdout) as { version: number | null; deleted: number; body: Record<string, unknown> } | null;
  };

  beforeAll(async () => {
    const snippets = snippetsOf(await readFile(GUIDE, 'utf8'));
    await mkdir(dir, { recursive: true });
    for (const [name, code] of snippets) await writeFile(join(dir, name), code);
    registry = new ClientRegistry(`e2e rsp guide ${randomUUID().slice(0, 8)}`);
    operator = new OperatorApi(await registry.operator());
    const port = await freeReceiverPort();
    const { registered } = await registry.registration(
      'RSP',
      [SCOPES.locationsRead],
      `http://${RECEIVER_HOST}:${port}/rsp`,
    );
    env = {
      PATH: process.env.PATH,
      LX_BASE_URL: registry.baseUrl,
      LX_CLIENT_ID: registered.clientId,
      LX_CLIENT_SECRET: registered.clientSecret,
      LX_WEBHOOK_SECRET: registered.webhookSecret,
      LX_MIRROR_DB: join(dir, 'mirror.db'),
      LX_RECEIVER_HOST: RECEIVER_HOST,
      LX_RECEIVER_PORT: String(port),
    };
    // A second RSP whose deliveries a plain receiver records, for the verification snippets.
    capture = await startReceiver();
    ({ webhookSecret: captureSecret } = await registry.rspWithWebhook(capture.url));
  }, 90_000);

  afterAll(async () => {
    receiverProcess?.kill('SIGTERM');
    await registry?.disableAll();
    await stopReceiver(capture);
    await rm(dir, { recursive: true, force: true });
  });

  it('names every file the guide runs', async () => {
    expect([...snippetsOf(await readFile(GUIDE, 'utf8')).keys()].sort()).toEqual([
      'VerifyWebhook.java',
      'daily_check.py',
      'export_chain.py',
      'follow_feed.py',
      'lx_client.py',
      'mirror.py',
      'receiver.py',
      'token.sh',
      'verify_webhook.py',
      'verify_webhook.ts',
    ]);
  });

  it('gets a token with the curl call', async () => {
    const { stdout } = await run('bash', [join(dir, 'token.sh')], { env, timeout: 30_000 });
    expect(JSON.parse(stdout)).toMatchObject({ token_type: 'Bearer', scope: 'locations:read' });
  });

  it('loads a full export, keeps the copy by webhook, catches up by the export chain and the change feed, and checks the counts', async () => {
    const groupName = `e2e rsp guide ${randomUUID().slice(0, 8)}`;
    const groupId = await operator.createLocationGroup(groupName);
    const first = await operator.createLocation({
      locationGroupId: groupId,
      geography: { country: 'AU', region: 'NSW', locality: 'Dubbo', postalCode: '2830' },
      address: { streetNumber: '1', streetName: 'Macquarie', streetType: 'STREET' },
      fiberAccessDetails: { serviceability: { status: 'PLANNED' } },
    });

    // The first full export.
    const full = await python('export_chain.py');
    expect(full.stdout).toMatch(/^full export: \d+ locations up to \d{4}-\d\d-\d\dT/);
    expect((await mirrorRow(first.location.id))?.body).toEqual(first.location);
    expect(await mirrorGroup(groupId)).toEqual({
      version: null,
      deleted: 0,
      body: { id: groupId, name: groupName, type: 'OTHER' },
    });

    // The receiver keeps the copy from the webhooks: a change and a new location arrive, versioned.
    receiverProcess = spawn('python3', [join(dir, 'receiver.py')], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    receiverProcess.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((listening, failed) => {
      receiverProcess!.stdout!.once('data', () => listening());
      receiverProcess!.once('exit', (code) => failed(new Error(`receiver.py exited with ${code}: ${stderr}`)));
    });
    const changed = await operator.patchLocation(first.location.id, {
      fiberAccessDetails: { serviceability: { status: 'CONSTRUCTION' } },
    });
    const second = await operator.createLocation({
      geography: { country: 'AU', region: 'NSW', locality: 'Orange', postalCode: '2800' },
      coordinates: { latitude: -33.284, longitude: 149.1004 },
    });
    const renamed = await operator.patchGroup('location-groups', groupId, { name: `${groupName} renamed` });
    const mduId = await operator.createAddressGroup(`${groupName} MDU`);
    await waitFor(
      'the receiver to apply the four events',
      async () =>
        (await mirrorRow(first.location.id))?.version === changed.version &&
        (await mirrorRow(second.location.id))?.version === second.version &&
        (await mirrorGroup(groupId))?.version === renamed.version &&
        (await mirrorGroup(mduId))?.version === 1,
      60_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; receiver stderr: ${stderr}`);
    });
    expect((await mirrorRow(first.location.id))?.body).toEqual(changed.location);
    expect((await mirrorGroup(groupId))?.body).toEqual(renamed.group);

    // With the receiver down, changes reach the copy by the export chain: a location's, and a group's deletion.
    receiverProcess.kill('SIGTERM');
    receiverProcess = undefined;
    const missed = await operator.patchLocation(second.location.id, { notes: 'changed while the receiver was down' });
    await operator.patchLocation(first.location.id, { locationGroupId: null });
    await operator.deleteGroup('location-groups', groupId);
    const incremental = await python('export_chain.py');
    expect(incremental.stdout).toMatch(/^incremental export: \d+ locations up to /);
    const row = await mirrorRow(second.location.id);
    expect(row?.body).toEqual(missed.location);
    // The exported row has no version, and replaced one the receiver held.
    expect(row?.version).toBeNull();
    expect(await mirrorGroup(groupId)).toMatchObject({ version: null, deleted: 1, body: { id: groupId } });
    expect((await mirrorGroup(groupId))?.body.deletedAt).toEqual(expect.any(String));

    // The change feed, read from its start, then from the stored cursor: a change made since reaches the copy.
    const fromStart = await python('follow_feed.py');
    expect(fromStart.stdout).toMatch(/^feed: \d+ changes applied, at the end/);
    const fed = await operator.patchLocation(second.location.id, { notes: 'changed before the feed was read' });
    const fromCursor = await python('follow_feed.py');
    expect(fromCursor.stdout).toMatch(/^feed: [1-9]\d* changes applied, at the end/);
    expect(await mirrorRow(second.location.id)).toEqual({ version: fed.version, body: fed.location });

    // The daily check: in sync; then, with a location gone from the copy, drift and exit 1.
    const check = await python('daily_check.py');
    expect(check.stdout).toMatch(/^in sync: \d+ locations/);
    await run(
      'python3',
      [
        '-c',
        'import os,sqlite3,sys; db=sqlite3.connect(os.environ["LX_MIRROR_DB"]); db.execute("DELETE FROM locations WHERE id=?", (sys.argv[1],)); db.commit()',
        first.location.id,
      ],
      { env },
    );
    await expect(python('daily_check.py')).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringMatching(/^drift: /),
    });
  }, 300_000);

  it('verifies a real delivery in TypeScript, Python and Java, and refuses it with one byte changed', async () => {
    const written = await operator.createLocation({
      geography: { country: 'AU', region: 'NSW', locality: 'Bathurst', postalCode: '2795' },
      coordinates: { latitude: -33.4193, longitude: 149.5775 },
    });
    let receipt: Receipt | undefined;
    await waitFor('the delivery of the creation', async () => {
      receipt = capture.receipts.find((r) => r.body.includes(written.location.id));
      return receipt !== undefined;
    });
    const headers = join(dir, 'headers.json');
    const body = join(dir, 'body.json');
    const tampered = join(dir, 'tampered.json');
    await writeFile(headers, JSON.stringify(receipt!.headers));
    await writeFile(body, receipt!.body);
    await writeFile(tampered, receipt!.body.replace('Bathurst', 'Bathursu'));
    const verifyEnv = { ...env, LX_WEBHOOK_SECRET: captureSecret };
    const commands: Record<string, (file: string) => [string, string[]]> = {
      typescript: (file) => [
        process.execPath,
        ['-r', join(REPO, 'libs/testing/register-swc.js'), join(dir, 'verify_webhook.ts'), headers, file],
      ],
      python: (file) => ['python3', [join(dir, 'verify_webhook.py'), headers, file]],
      java: (file) => ['java', [join(dir, 'VerifyWebhook.java'), headers, file]],
    };
    for (const [language, command] of Object.entries(commands)) {
      const [program, args] = command(body);
      const { stdout } = await run(program, args, { cwd: dir, env: verifyEnv, timeout: 60_000 });
      expect({ language, stdout: stdout.trim() }).toEqual({
        language,
        stdout: expect.stringMatching(/^verified LOCATION_CREATED (\S+ )?version 1$/),
      });
      const [, badArgs] = command(tampered);
      await expect(run(program, badArgs, { cwd: dir, env: verifyEnv, timeout: 60_000 })).rejects.toMatchObject({
        code: 1,
      });
    }
  }, 180_000);
});
