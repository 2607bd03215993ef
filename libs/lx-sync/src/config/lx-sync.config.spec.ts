import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LxSyncError } from '../errors';
import { loadLxSyncConfig } from './lx-sync.config';

const REQUIRED = {
  LX_SYNC_API_URL: 'https://api.example.test/',
  LX_SYNC_CLIENT_ID: 'client',
  LX_SYNC_CLIENT_SECRET: 'secret',
  LX_SYNC_DATABASE: 'mirror.db',
};

describe('loadLxSyncConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lx-sync-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the environment, with defaults for the rest', () => {
    expect(loadLxSyncConfig({ env: REQUIRED })).toEqual({
      apiUrl: 'https://api.example.test',
      clientId: 'client',
      clientSecret: 'secret',
      database: 'mirror.db',
      listenHost: '0.0.0.0',
      listenPort: 8787,
      feedIntervalSeconds: 60,
      checkIntervalSeconds: 86400,
      confirmDelayMs: 2000,
      requestTimeoutMs: 60000,
    });
  });

  it('lets the environment override the file, and flags override both (an empty variable overrides nothing)', () => {
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ ...{ apiUrl: 'http://file.test', database: 'file.db', listenPort: 9000 } }));
    const config = loadLxSyncConfig({
      file,
      env: { LX_SYNC_CLIENT_ID: 'c', LX_SYNC_CLIENT_SECRET: 's', LX_SYNC_DATABASE: 'env.db', LX_SYNC_API_URL: '' },
      overrides: { listenPort: '9100' },
    });
    expect(config).toMatchObject({ apiUrl: 'http://file.test', database: 'env.db', listenPort: 9100 });
  });

  it('reports every problem at once, naming the setting and its variable', () => {
    let error: unknown;
    try {
      loadLxSyncConfig({
        env: { LX_SYNC_API_URL: 'ftp://x', LX_SYNC_LISTEN_PORT: '70000', LX_SYNC_WEBHOOK_SECRET: 'whsec_!!bad' },
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(LxSyncError);
    expect((error as LxSyncError).code).toBe('CONFIG_INVALID');
    expect((error as LxSyncError).details.problems).toEqual([
      'apiUrl (LX_SYNC_API_URL) must be an http(s) URL, not "ftp://x"',
      'clientId (LX_SYNC_CLIENT_ID) is required',
      'clientSecret (LX_SYNC_CLIENT_SECRET) is required',
      'database (LX_SYNC_DATABASE) is required',
      'listenPort (LX_SYNC_LISTEN_PORT) must be an integer from 0 to 65535, not "70000"',
      'webhookSecret (LX_SYNC_WEBHOOK_SECRET) must be the whsec_… secret auth revealed for the client',
    ]);
  });

  it('refuses an unreadable, non-JSON or unknown-keyed file', () => {
    expect(() => loadLxSyncConfig({ file: join(dir, 'missing.json'), env: REQUIRED })).toThrow(/cannot read/);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{');
    expect(() => loadLxSyncConfig({ file: bad, env: REQUIRED })).toThrow(/not JSON/);
    writeFileSync(bad, '{"apiURL": "x"}');
    expect(() => loadLxSyncConfig({ file: bad, env: REQUIRED })).toThrow(/unknown keys: apiURL/);
  });
});
