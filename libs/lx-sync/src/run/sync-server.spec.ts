import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import type { MirrorStore } from '../store/mirror-store';
import { openMirrorStore } from '../store/open-mirror-store';
import { ReceiveWebhook } from '../use-cases/receive-webhook.use-case';
import { SyncMetrics } from './sync-metrics';
import { SyncServer } from './sync-server';

const SECRET = `whsec_${Buffer.from('a secret of thirty-two bytes!!!!').toString('base64')}`;

describe('SyncServer (the webhook receiver of lx-sync run), over real HTTP and a SQLite mirror', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lx-sync-server-'));
  let store: MirrorStore;
  let server: SyncServer;
  let base: string;
  let healthy = true;
  const metrics = new SyncMetrics();
  const signer = new Webhook(SECRET);

  beforeAll(async () => {
    store = await openMirrorStore(join(dir, 'mirror.db'));
    server = new SyncServer(
      new ReceiveWebhook(store, SECRET),
      metrics,
      { health: () => Promise.resolve({ ok: healthy, details: { feed: {} } }) },
      () => undefined,
    );
    base = `http://127.0.0.1:${await server.listen('127.0.0.1', 0)}`;
  });
  afterAll(async () => {
    await server.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const deliver = async (body: string, options: { webhookId?: string; secret?: Webhook; path?: string } = {}) => {
    const webhookId = options.webhookId ?? randomUUID();
    const timestamp = new Date();
    const signature = (options.secret ?? signer).sign(webhookId, timestamp, body);
    const response = await fetch(`${base}${options.path ?? '/locations/events'}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': webhookId,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const change = (id: string, version: number, type = 'LOCATION_UPDATED') =>
    JSON.stringify({
      event: {
        id: randomUUID(),
        type,
        timestamp: new Date().toISOString(),
        source: 'x',
        data: { id, n: version },
        version,
      },
    });

  it('applies a signed change once committed, skips a stale one and a repeated webhook-id', async () => {
    const id = randomUUID();
    expect(await deliver(change(id, 2))).toEqual({ status: 200, body: { status: 'applied' } });
    expect((await store.row('locations', id))?.version).toBe(2);
    expect(await deliver(change(id, 1))).toEqual({ status: 200, body: { status: 'stale' } });
    const webhookId = randomUUID();
    expect((await deliver(change(id, 3), { webhookId })).body.status).toBe('applied');
    expect((await deliver(change(id, 4), { webhookId })).body.status).toBe('duplicate');
    expect((await store.row('locations', id))?.version).toBe(3);
  });

  it('keeps a deleted group as a tombstone, and acknowledges export notifications without storing them', async () => {
    const id = randomUUID();
    expect((await deliver(change(id, 1, 'ADDRESS_GROUP_CREATED'))).body.status).toBe('applied');
    expect((await deliver(change(id, 2, 'ADDRESS_GROUP_DELETED'))).body.status).toBe('applied');
    expect(await store.row('addressGroups', id)).toMatchObject({ version: 2, deleted: true });
    expect(await store.count('addressGroups')).toBe(0);
    const notification = JSON.stringify({
      requestId: randomUUID(),
      status: 'FAILED',
      error: { code: 'X', message: 'y' },
    });
    expect((await deliver(notification, { path: '/locations/exports/events' })).body.status).toBe('ignored');
  });

  it('refuses a bad signature with 401 and writes nothing', async () => {
    const id = randomUUID();
    const other = new Webhook(`whsec_${Buffer.from('another secret of 32 bytes!!!!!!').toString('base64')}`);
    const refused = await deliver(change(id, 1), { secret: other });
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: { code: 'SIGNATURE_INVALID' } });
    expect(await store.row('locations', id)).toBeUndefined();
    const metricsText = await (await fetch(`${base}/metrics`)).text();
    expect(metricsText).toMatch(/lx_sync_webhooks_total\{outcome="invalid_signature"\} 1/);
    expect(metricsText).toMatch(/lx_sync_webhooks_total\{outcome="applied"\} [1-9]/);
  });

  it('refuses a signed but malformed change for good (400), writing nothing', async () => {
    const id = randomUUID();
    const noVersion = JSON.stringify({ event: { id: randomUUID(), type: 'LOCATION_UPDATED', data: { id } } });
    expect(await deliver(noVersion)).toMatchObject({ status: 400, body: { error: { code: 'INVALID_PAYLOAD' } } });
    expect((await deliver('not json')).status).toBe(400);
    expect(await store.row('locations', id)).toBeUndefined();
  });

  it('answers health with 200 or 503, and 404/405/413 for what is not a webhook', async () => {
    expect((await fetch(`${base}/health`)).status).toBe(200);
    healthy = false;
    expect((await fetch(`${base}/health`)).status).toBe(503);
    healthy = true;
    expect((await fetch(`${base}/elsewhere`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${base}/locations/events`)).status).toBe(405);
    const huge = await fetch(`${base}/locations/events`, { method: 'POST', body: 'x'.repeat(2 << 20) });
    expect(huge.status).toBe(413);
  });
});
