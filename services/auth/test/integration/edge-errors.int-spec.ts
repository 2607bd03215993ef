import { join } from 'node:path';
import { freePort } from '@lx/platform';
import { REPO_ROOT, spawnTs, type TsProcess, waitFor } from '@lx/testing';

const ENTRY = join(REPO_ROOT, 'services', 'auth', 'src', 'edge-errors.ts');

/**
 * `lx edge-errors` as its own process (the entry the image runs): it listens where HTTP_HOST and HTTP_PORT say,
 * answers the API's JSON errors, stops at SIGTERM with exit 0, and refuses a bad setting by name.
 */
describe('edge-errors entry point', () => {
  let child: TsProcess | undefined;

  afterEach(() => {
    child?.process.kill('SIGKILL');
    child = undefined;
  });

  it('serves the ingress errors on HTTP_PORT and exits 0 at SIGTERM', async () => {
    const port = await freePort();
    child = spawnTs(ENTRY, { PATH: process.env['PATH'], HTTP_HOST: '127.0.0.1', HTTP_PORT: String(port) });
    const running = child;
    await waitFor(
      'edge-errors to listen',
      async () => (await fetch(`http://127.0.0.1:${port}/`)).status === 404,
      30_000,
    );
    const missing = await fetch(`http://127.0.0.1:${port}/no/route`);
    expect(await missing.json()).toEqual({ error: { code: 'RESOURCE_NOT_FOUND', message: 'No route for this path' } });
    running.process.kill('SIGTERM');
    expect(await running.exited).toEqual({ code: 0, signal: null });
    expect(running.output()).toContain('"msg":"stopping"');
  });

  it('refuses a bad HTTP_PORT by name and exits 1', async () => {
    child = spawnTs(ENTRY, { PATH: process.env['PATH'], HTTP_PORT: 'eighty' });
    expect(await child.exited).toEqual({ code: 1, signal: null });
    expect(child.output()).toMatch(/HTTP_PORT/);
  });
});
