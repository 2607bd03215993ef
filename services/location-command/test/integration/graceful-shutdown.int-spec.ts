import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, REPO_ROOT, spawnTs, type TsProcess, waitFor } from '@lx/testing';
import { aLocationBody, type LocationCommandHarness, startLocationCommand } from '../support/location-command-harness';

const MAIN = join(REPO_ROOT, 'services/location-command/src/main.ts');

/** POSTs an import whose body arrives in two parts: the second only when `rest` is called. */
function importInTwoParts(port: number, token: string, first: string, second: string) {
  const request = httpRequest({
    host: '127.0.0.1',
    port,
    path: '/operator/imports',
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
  });
  const reply = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
  });
  request.write(first);
  return { rest: () => request.end(second), reply };
}

/**
 * A service stopped with SIGTERM (what Kubernetes sends at the end of a pod's preStop pause) while a request is in
 * flight: the request still completes, its writes are committed, and the process exits 0. The image runs node as PID
 * 1 (docker/lx.js), so this is the path every rolling upgrade takes.
 */
describe('graceful shutdown', () => {
  let harness: LocationCommandHarness;
  let child: TsProcess | undefined;

  beforeAll(async () => {
    // In this process only to migrate the schema and read the store; the service under test runs as a child.
    harness = await startLocationCommand();
    await harness.stopApp();
  }, 90_000);

  afterAll(async () => {
    child?.process.kill('SIGKILL');
    await harness?.close();
  });

  it('finishes an import in flight at SIGTERM, commits it, and exits 0', async () => {
    const port = await freePort();
    child = spawnTs(MAIN, { ...harness.env, HTTP_HOST: '127.0.0.1', HTTP_PORT: String(port) });
    const running = child;
    await waitFor(
      'the service to be ready',
      async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).ok,
      90_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${running.output()}`);
    });
    const lines = Array.from({ length: 200 }, () => JSON.stringify({ id: randomUUID(), ...aLocationBody() }));
    const token = await harness.issuer.token({ scopes: ['locations:write'] });
    const upload = importInTwoParts(
      port,
      token,
      `${lines.slice(0, 100).join('\n')}\n`,
      `${lines.slice(100).join('\n')}\n`,
    );

    // The service has the request and half its body when the signal comes; the rest arrives while it is stopping.
    await sleep(1_000);
    running.process.kill('SIGTERM');
    await waitFor('the service to begin stopping', () =>
      Promise.resolve(running.output().includes('"msg":"stopping"')),
    );
    await sleep(500);
    upload.rest();

    const reply = await upload.reply;
    expect({ status: reply.status, body: JSON.parse(reply.body) as unknown }).toMatchObject({
      status: 200,
      body: { created: 200, rejected: 0 },
    });
    expect(await running.exited).toEqual({ code: 0, signal: null });
    const { rows } = await harness.db.query<{ n: string }>('SELECT count(*) AS n FROM events');
    expect(Number(rows[0]!.n)).toBe(200);
    // A new connection is refused once it has stopped.
    await expect(fetch(`http://127.0.0.1:${port}/health/live`)).rejects.toThrow();
  }, 180_000);
});
