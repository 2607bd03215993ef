import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REGISTER_SWC, REPO_ROOT } from '@lx/testing';
import { aLocationBody, type LocationCommandHarness, startLocationCommand } from '../support/location-command-harness';

const run = promisify(execFile);
const CLI = join(REPO_ROOT, 'services/location-command/src/cli/import.ts');

/** The operator staff's import tool against the real service over HTTP. */
describe('lx-import command-line tool', () => {
  let service: LocationCommandHarness;
  let baseUrl: string;
  let dir: string;

  beforeAll(async () => {
    service = await startLocationCommand();
    await service.app.listen(0, '127.0.0.1');
    baseUrl = await service.app.getUrl();
    dir = await mkdtemp(join(tmpdir(), 'lx-import-cli-'));
  }, 60_000);

  afterAll(async () => {
    await service?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    run(process.execPath, ['-r', REGISTER_SWC, CLI, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env } }).then(
      (result) => ({ code: 0, ...result }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        stdout: error.stdout,
        stderr: error.stderr,
      }),
    );

  it('streams an NDJSON file with a token, prints the report as JSON and a rows/s summary, exits 0', async () => {
    const ids = Array.from({ length: 300 }, () => randomUUID());
    const file = join(dir, 'locations.ndjson');
    await writeFile(file, ids.map((id) => JSON.stringify({ id, ...aLocationBody() })).join('\n'));
    const token = await service.issuer.token({ scopes: ['locations:write'] });

    const result = await cli([file, '--url', baseUrl, '--token', token]);

    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ mode: 'merge', rowsRead: 300, created: 300, rejected: 0 });
    expect(result.stderr).toMatch(/importing \[.*\] 100% \| 300 rows \| [\d,]+ rows\/s/);
    expect(result.stderr).toMatch(
      /300 rows in [\d.]+ s \([\d]+ rows\/s\): 300 created, 0 updated, 0 unchanged, 0 rejected, 0 retired/,
    );
  }, 60_000);

  it('gets a token by the client-credentials grant, sends CSV by extension, and exits 2 when rows were rejected', async () => {
    let form: URLSearchParams | undefined;
    const token = await service.issuer.token({ scopes: ['locations:write'] });
    const tokenServer: Server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        form = new URLSearchParams(body);
        response.setHeader('content-type', 'application/json');
        response.end(
          JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 600, scope: 'locations:write' }),
        );
      });
    });
    await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
    const address = tokenServer.address();
    const tokenUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/oauth/token`;
    const file = join(dir, 'locations.csv');
    await writeFile(
      file,
      [
        'id,geography.country,geography.region,geography.locality,geography.postalCode,coordinates.latitude,coordinates.longitude',
        `${randomUUID()},US,CO,Denver,80202,39.7,-104.9`,
        `${randomUUID()},US,CO,Denver,80202,95,-104.9`,
      ].join('\n'),
    );
    try {
      const result = await cli(
        [file, '--url', baseUrl, '--token-url', tokenUrl, '--client-id', 'ops-tool', '--no-progress'],
        {
          LX_CLIENT_SECRET: 'a-secret-from-the-environment',
        },
      );

      expect(result.code).toBe(2);
      expect(JSON.parse(result.stdout)).toMatchObject({
        rowsRead: 2,
        created: 1,
        rejected: 1,
        rejections: [{ line: 3 }],
      });
      expect(Object.fromEntries(form ?? [])).toEqual({
        grant_type: 'client_credentials',
        client_id: 'ops-tool',
        client_secret: 'a-secret-from-the-environment',
        scope: 'locations:write',
      });
    } finally {
      await new Promise<void>((resolve) => tokenServer.close(() => resolve()));
    }
  }, 60_000);

  it('exits 1 with the error when the service refuses the request', async () => {
    const file = join(dir, 'refused.ndjson');
    await writeFile(file, '{}\n');
    const result = await cli([file, '--url', baseUrl, '--token', 'not-a-token', '--no-progress']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).error.code).toBe('UNAUTHORIZED');
    expect(result.stderr).toContain('import failed: HTTP 401');
  }, 60_000);

  it('full-replace: exits 1 naming the number to confirm when it would retire too many, and retires with --confirm-retirements', async () => {
    const file = join(dir, 'one-row.ndjson');
    await writeFile(file, JSON.stringify({ id: randomUUID(), ...aLocationBody() }));
    const token = await service.issuer.token({ scopes: ['locations:write'] });
    const args = [file, '--url', baseUrl, '--token', token, '--mode', 'full-replace', '--no-progress'];

    const refused = await cli(args);

    expect(refused.code).toBe(1);
    const wouldRetire = JSON.parse(refused.stdout).error.details.wouldRetire as number;
    expect(wouldRetire).toBeGreaterThanOrEqual(300);
    expect(refused.stderr).toContain('import failed: HTTP 409: the file leaves out');
    expect(refused.stderr).toContain(`to retire them: --confirm-retirements ${wouldRetire}`);

    const confirmed = await cli([...args, '--confirm-retirements', String(wouldRetire)]);

    expect(confirmed.code).toBe(0);
    expect(JSON.parse(confirmed.stdout)).toMatchObject({ mode: 'full-replace', rowsRead: 1, retired: wouldRetire });
    expect((await cli([...args, '--confirm-retirements', 'many'])).stderr).toContain('must be a whole number');
  }, 60_000);
});
