import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVICEABILITY_STATUSES } from '@lx/contracts';
import { REGISTER_SWC, REPO_ROOT, waitFor } from '@lx/testing';
import type { Demo } from '../src/demo/demo-setup';

/** One run of npm start's entry point on `dataDir`, with everything it printed. */
interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function start(dataDir: string, ...args: string[]): Started {
  const child = spawn(
    process.execPath,
    ['-r', REGISTER_SWC, join(REPO_ROOT, 'deploy/embedded/src/main.ts'), '--port', '0', '--data-dir', dataDir, ...args],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function untilReady(started: Started): Promise<void> {
  await waitFor(
    'the printed quickstart',
    () => Promise.resolve(started.child.exitCode !== null || started.output().includes('Stop with Ctrl-C')),
    120_000,
  );
  if (started.child.exitCode !== null) throw new Error(`npm start exited: ${started.output()}`);
}

async function stop(started: Started): Promise<number | null> {
  if (started.child.exitCode !== null) return started.child.exitCode;
  started.child.kill('SIGINT');
  return started.exited;
}

/** Ctrl-C, and the process must end with 0; otherwise the failure shows how it ended. */
async function expectStopsCleanly(started: Started): Promise<void> {
  const code = await stop(started);
  if (code !== 0) throw new Error(`npm start ended with ${code} after Ctrl-C:\n${started.output().slice(-4_000)}`);
}

/** The commands under "Try it", as printed. */
function printedCommands(output: string): string[] {
  const lines = output.split('\n');
  const first = lines.findIndex((line) => line.startsWith('Try it')) + 2;
  const end = lines.findIndex((line, index) => index >= first && line.trim() === '');
  return lines.slice(first, end).map((line) => line.trim());
}

/**
 * Runs the commands in one shell, as pasted one after the other, and returns what each printed. `then` is run after
 * them in the same shell (to read the variables they set).
 */
function paste(commands: readonly string[], then: string): string[] {
  const script = [...commands, then].map((command, index) => `${command}\necho "@@${index}@@"`).join('\n');
  const result = spawnSync('bash', ['-c', `set -e\n${script}`], { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`the pasted commands failed (${result.status}): ${result.stderr}`);
  const outputs: string[] = [];
  let rest = result.stdout;
  for (let index = 0; index <= commands.length; index += 1) {
    const [before, after] = rest.split(`@@${index}@@\n`) as [string, string];
    outputs.push(before.trim());
    rest = after;
  }
  return outputs;
}

/** The public base URL npm start printed. */
const baseUrlOf = (output: string) => /running at (\S+)/.exec(output)![1]!;

/** A notification the demo receiver lists. */
interface Notification {
  signatureValid: boolean;
  body: { requestId: string; status: string; exportUrl: string };
}

/**
 * The export's notification, once the demo receiver lists it: the printed BASE and webhooks commands pasted again
 * until it arrived, as a user would.
 */
async function exportNotification(commands: readonly string[], requestId: string): Promise<Notification> {
  let notification: Notification | undefined;
  await waitFor(
    'the export notification at the demo receiver',
    () => {
      const [, again] = paste([commands[0]!, commands[6]!], 'true');
      const received = (JSON.parse(again!) as { received: Notification[] }).received;
      notification = received.find((entry) => entry.body?.requestId === requestId);
      return Promise.resolve(notification !== undefined);
    },
    60_000,
  );
  return notification!;
}

describe('npm start: the embedded profile on a fresh data folder', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lx-embedded-'));
  let running: Started;

  beforeAll(async () => {
    running = start(dataDir);
    await untilReady(running);
  }, 180_000);

  afterAll(async () => {
    await stop(running);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('loads the demo data once through the import and prints the clients and the quickstart', () => {
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8')) as Demo;
    expect(demo.locations).toBeGreaterThan(2_000);
    expect(running.output()).toContain(`loading the demo data: ${demo.locations} locations`);
    for (const secret of [demo.rsp.clientSecret, demo.operator.clientSecret])
      expect(running.output()).toContain(secret);
  });

  it('prints commands that each work when pasted: token, a location, statistics, an export, its status, webhooks', async () => {
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8')) as Demo;
    const commands = printedCommands(running.output());
    expect(commands).toHaveLength(7);
    const outputs = paste(commands, 'echo "$TOKEN $EXPORT"');
    const [, , location, statistics, , exportStatus, webhooks, variables] = outputs;

    const [token, requestId] = variables!.split(' ');
    expect(token).toMatch(/^ey[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(JSON.parse(location!)).toMatchObject({ id: demo.sampleLocationId });
    const counts = JSON.parse(statistics!) as { totalCount: number; countByStatus: Record<string, number> };
    expect(counts.totalCount).toBe(demo.locations);
    for (const status of SERVICEABILITY_STATUSES) expect(counts.countByStatus[status]).toBeGreaterThan(0);
    expect(JSON.parse(exportStatus!)).toMatchObject({ requestId, format: 'csv' });
    expect(JSON.parse(webhooks!)).toHaveProperty('received');

    // The last command again, until the export's signed notification arrived at the demo receiver.
    const notification = await exportNotification(commands, requestId!);
    expect(notification).toMatchObject({ signatureValid: true, body: { requestId, status: 'COMPLETED' } });
    const download = await fetch(notification.body.exportUrl);
    expect(download.status).toBe(200);
    expect((await download.text()).split('\n').filter(Boolean)).toHaveLength(demo.locations + 1);
  });

  it('refuses a second start on the same data folder while one runs', async () => {
    const second = start(dataDir);
    expect(await second.exited).toBe(1);
    expect(second.output()).toMatch(/already running on .* \(pid \d+\)/);
  });

  it('says so when the port is taken, before starting anything', async () => {
    const port = new URL(baseUrlOf(running.output())).port;
    const otherDir = mkdtempSync(join(tmpdir(), 'lx-embedded-port-'));
    try {
      const second = start(otherDir, '--port', port);
      expect(await second.exited).toBe(1);
      expect(second.output()).toContain(`port ${port} is taken by another program`);
      expect(second.output()).not.toContain('starting PostgreSQL');
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('stops on Ctrl-C, and starts again with the same data on another port; --reset starts afresh', async () => {
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8')) as Demo;
    const firstBaseUrl = baseUrlOf(running.output());
    await expectStopsCleanly(running);

    // --port 0 again: another free port, so the demo receiver is no longer where the first start registered it.
    running = start(dataDir);
    await untilReady(running);
    const baseUrl = baseUrlOf(running.output());
    expect(baseUrl).not.toBe(firstBaseUrl);
    expect(running.output()).not.toContain('loading the demo data');
    expect(running.output()).toContain(demo.rsp.clientSecret);
    const commands = printedCommands(running.output());
    const [, , , statistics, , , , requestId] = paste(commands, 'echo "$EXPORT"');
    expect(JSON.parse(statistics!)).toMatchObject({ totalCount: demo.locations });
    // The printed commands' export is notified, signed, to the receiver on this start's port.
    const notification = await exportNotification(commands, requestId!);
    expect(notification).toMatchObject({ signatureValid: true, body: { requestId, status: 'COMPLETED' } });
    expect(running.output()).toContain(`webhooks go to ${baseUrl}/demo/webhooks`);
    await expectStopsCleanly(running);

    running = start(dataDir, '--reset');
    await untilReady(running);
    expect(running.output()).toContain('loading the demo data');
    expect(running.output()).not.toContain(demo.rsp.clientSecret);
  }, 240_000);
});
