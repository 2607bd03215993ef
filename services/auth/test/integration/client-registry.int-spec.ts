import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { KAFKA_HEADERS, validateEvent, type RegisteredClient } from '@lx/contracts';
import { WebhookSecretTransport } from '@lx/platform';
import { requireEnv } from '@lx/testing';
import { runCli } from '../../src/cli/auth-cli';
import { ClientEventsReader } from './support/client-events';
import { form, FORM_TYPE, startAuth, type AuthUnderTest } from './support/auth-under-test';

/** Everything written to stdout and stderr while the file runs (pino writes there under jest). */
const output: string[] = [];
const spies = [process.stdout, process.stderr].map((stream) =>
  jest.spyOn(stream, 'write').mockImplementation((chunk: unknown) => {
    output.push(String(chunk));
    return true;
  }),
);

/** Every secret this file saw; none may show up where it should not. */
const clientSecrets: string[] = [];
const webhookSecrets: string[] = [];

describe('the admin API of a freshly started auth service', () => {
  it('verifies every one of many concurrent first requests (none fails while the key set loads)', async () => {
    // The race the system tests found: requests that missed the empty key cache while the first one loaded it were
    // refused with "signed by an unknown key".
    const fresh = await startAuth();
    try {
      const token = await fresh.adminToken();
      const replies = await Promise.all(
        Array.from({ length: 8 }, () =>
          fetch(`${fresh.url}/admin/clients?limit=1`, { headers: { authorization: `Bearer ${token}` } }),
        ),
      );
      expect(replies.map((reply) => reply.status)).toEqual(Array.from({ length: 8 }, () => 200));
    } finally {
      await fresh.close();
    }
  });
});

describe('client registry: admin API, command-line tool, events', () => {
  let auth: AuthUnderTest;
  let events: ClientEventsReader;
  let adminToken: string;

  const admin = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${auth.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });

  const tokenStatus = async (clientId: string, clientSecret: string) =>
    (
      await fetch(`${auth.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': FORM_TYPE },
        body: form({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
      })
    ).status;

  const cli = async (...argv: string[]) => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      env: auth.env,
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
    });
    return { code, stdout, stderr, json: () => JSON.parse(stdout) };
  };

  /** The webhook secret a CLIENT_* event of `clientId` at `version` carries, opened with the transport key. */
  const openedWebhookSecret = (event: { data: Record<string, unknown> } | undefined, version: number) =>
    new WebhookSecretTransport(Buffer.from(auth.env.WEBHOOK_SECRET_TRANSPORT_KEY!, 'base64')).open(
      event?.data.webhookSecretSealed as string,
      { clientId: event?.data.clientId as string, version },
    );

  const remember = (secrets: { clientSecret: string; webhookSecret?: string }) => {
    clientSecrets.push(secrets.clientSecret);
    if (secrets.webhookSecret !== undefined) webhookSecrets.push(secrets.webhookSecret);
  };

  beforeAll(async () => {
    events = new ClientEventsReader();
    await events.start();
    auth = await startAuth({ LOG_LEVEL: 'trace' });
    clientSecrets.push(auth.admin.clientSecret);
    adminToken = await auth.adminToken();
  }, 60_000);

  afterAll(async () => {
    await events?.stop();
    await auth?.close();
    spies.forEach((spy) => spy.mockRestore());
  });

  describe('over HTTP', () => {
    let rsp: RegisteredClient;

    it('registers an RSP: 201 with its secrets shown once, uncached; CLIENT_REGISTERED carries the webhook secret sealed', async () => {
      const response = await admin('POST', '/admin/clients', {
        name: 'Acme Fiber',
        kind: 'RSP',
        scopes: ['locations:read'],
        webhookUrl: 'https://hooks.acme.example/lx',
      });
      expect(response.status).toBe(201);
      expect(response.headers.get('cache-control')).toBe('no-store');
      rsp = (await response.json()) as RegisteredClient;
      remember(rsp);
      expect(response.headers.get('location')).toBe(`/admin/clients/${rsp.clientId}`);
      expect(rsp).toEqual({
        clientId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        clientSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        webhookSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
        name: 'Acme Fiber',
        kind: 'RSP',
        scopes: ['locations:read'],
        enabled: true,
        webhookUrl: 'https://hooks.acme.example/lx',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(await tokenStatus(rsp.clientId, rsp.clientSecret)).toBe(200);

      const [registered] = await events.waitForEvents(rsp.clientId, 1);
      expect(validateEvent(registered).ok).toBe(true);
      expect(registered).toEqual({
        id: expect.any(String),
        type: 'CLIENT_REGISTERED',
        timestamp: expect.any(String),
        source: 'auth',
        data: {
          clientId: rsp.clientId,
          name: 'Acme Fiber',
          kind: 'RSP',
          scopes: ['locations:read'],
          enabled: true,
          webhookUrl: 'https://hooks.acme.example/lx',
          webhookSecretSealed: expect.stringMatching(/^[A-Za-z0-9+/]+={0,2}$/),
        },
      });
      expect(openedWebhookSecret(registered, 1)).toBe(rsp.webhookSecret);
      expect(events.messagesOf(rsp.clientId)[0]?.headers[KAFKA_HEADERS.aggregateVersion]).toBe('1');
    });

    it('lists and gets clients without any secret', async () => {
      const list = await admin('GET', '/admin/clients?limit=10');
      expect(list.status).toBe(200);
      const body: any = await list.json();
      expect(body.pagination).toEqual({ limit: 10, offset: 0, total: 2 });
      expect(body.clients.map((client: any) => client.kind).sort()).toEqual(['ADMIN', 'RSP']);

      const one = await admin('GET', `/admin/clients/${rsp.clientId}`);
      expect(one.status).toBe(200);
      const { clientSecret: _secret, webhookSecret: _webhookSecret, ...view } = rsp;
      expect(await one.json()).toEqual(view);
    });

    it('updates the webhook URL: CLIENT_UPDATED carries the new URL and the same webhook secret, sealed anew', async () => {
      const response = await admin('PATCH', `/admin/clients/${rsp.clientId}`, {
        webhookUrl: 'https://hooks.acme.example/v2',
      });
      expect(response.status).toBe(200);
      const view: any = await response.json();
      expect(view.webhookUrl).toBe('https://hooks.acme.example/v2');
      expect(view).not.toHaveProperty('clientSecret');
      expect(view).not.toHaveProperty('webhookSecret');

      const [, updated] = await events.waitForEvents(rsp.clientId, 2);
      expect(updated).toMatchObject({
        type: 'CLIENT_UPDATED',
        data: { webhookUrl: 'https://hooks.acme.example/v2', enabled: true },
      });
      expect(openedWebhookSecret(updated, 2)).toBe(rsp.webhookSecret);
    });

    it('rotates the secrets: new ones shown once, the old secret stops working, CLIENT_SECRET_ROTATED carries the new webhook secret', async () => {
      const response = await admin('POST', `/admin/clients/${rsp.clientId}/rotate-secret`);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const rotated: any = await response.json();
      remember(rotated);
      expect(rotated).toEqual({
        clientId: rsp.clientId,
        clientSecret: expect.any(String),
        webhookSecret: expect.stringMatching(/^whsec_/),
      });
      expect(rotated.clientSecret).not.toBe(rsp.clientSecret);
      expect(rotated.webhookSecret).not.toBe(rsp.webhookSecret);
      expect(await tokenStatus(rsp.clientId, rsp.clientSecret)).toBe(401);
      expect(await tokenStatus(rsp.clientId, rotated.clientSecret)).toBe(200);

      const [, , event] = await events.waitForEvents(rsp.clientId, 3);
      expect(event).toMatchObject({ type: 'CLIENT_SECRET_ROTATED' });
      expect(openedWebhookSecret(event, 3)).toBe(rotated.webhookSecret);
    });

    it('disables a client: no more tokens; CLIENT_DISABLED; disabling again changes nothing', async () => {
      const response = await admin('POST', `/admin/clients/${rsp.clientId}/disable`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ clientId: rsp.clientId, enabled: false });
      expect(await tokenStatus(rsp.clientId, clientSecrets.at(-1)!)).toBe(401);

      const [, , , disabled] = await events.waitForEvents(rsp.clientId, 4);
      expect(disabled).toMatchObject({ type: 'CLIENT_DISABLED', data: { enabled: false } });

      const again = await admin('POST', `/admin/clients/${rsp.clientId}/disable`);
      expect(again.status).toBe(200);
      expect(await again.json()).toMatchObject({ enabled: false });
      // Sentinel instead of a sleep: a change that does publish, on the same key (so after anything the second
      // disable could have published); once it arrived, whatever the second disable published would be before it.
      expect((await admin('PATCH', `/admin/clients/${rsp.clientId}`, { name: 'Acme Fiber (marker)' })).status).toBe(
        200,
      );
      const published = await events.waitForEvents(rsp.clientId, 5);
      expect(published.map((event) => event.type)).toEqual([
        'CLIENT_REGISTERED',
        'CLIENT_UPDATED',
        'CLIENT_SECRET_ROTATED',
        'CLIENT_DISABLED',
        'CLIENT_UPDATED',
      ]);
      expect(published[4]?.data).toMatchObject({ name: 'Acme Fiber (marker)', enabled: false });
      expect(events.messagesOf(rsp.clientId).map((message) => message.headers[KAFKA_HEADERS.aggregateVersion])).toEqual(
        ['1', '2', '3', '4', '5'],
      );
    });

    it('registers operator and admin clients without webhook or webhook secret', async () => {
      const response = await admin('POST', '/admin/clients', { name: 'Operator', kind: 'OPERATOR' });
      expect(response.status).toBe(201);
      const operator: any = await response.json();
      remember(operator);
      expect(operator.scopes).toEqual(['locations:read', 'locations:write']);
      expect(operator).not.toHaveProperty('webhookSecret');
      const [event] = await events.waitForEvents(operator.clientId, 1);
      expect(event?.data).toEqual({
        clientId: operator.clientId,
        name: 'Operator',
        kind: 'OPERATOR',
        scopes: ['locations:read', 'locations:write'],
        enabled: true,
      });
    });

    it.each([
      ['an RSP with the write scope', { name: 'x', kind: 'RSP', scopes: ['locations:write'] }, 'scopes'],
      ['an operator with a webhook', { name: 'x', kind: 'OPERATOR', webhookUrl: 'https://x.example' }, 'webhookUrl'],
      ['an unknown scope', { name: 'x', kind: 'RSP', scopes: ['everything'] }, 'scopes[0]'],
      ['an unknown kind', { name: 'x', kind: 'ROBOT' }, 'kind'],
      ["the internal services' kind", { name: 'x', kind: 'SERVICE' }, 'kind'],
      [
        'an operator with the internal scope',
        { name: 'x', kind: 'OPERATOR', scopes: ['locations:internal'] },
        'scopes',
      ],
      ['an RSP with the internal scope', { name: 'x', kind: 'RSP', scopes: ['locations:internal'] }, 'scopes'],
      ['no name', { kind: 'RSP' }, 'name'],
      ['an ftp webhook', { name: 'x', kind: 'RSP', webhookUrl: 'ftp://x.example' }, 'webhookUrl'],
      ['a webhook with credentials', { name: 'x', kind: 'RSP', webhookUrl: 'https://u:p@x.example' }, 'webhookUrl'],
      ['an unknown field', { name: 'x', kind: 'RSP', clientSecret: 'mine' }, 'clientSecret'],
    ])('refuses %s: 400 VALIDATION_ERROR naming the field', async (_, body, field) => {
      const response = await admin('POST', '/admin/clients', body);
      expect(response.status).toBe(400);
      const { error }: any = await response.json();
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.details.issues.map((issue: any) => issue.field)).toContain(field);
    });

    it('answers a non-UUID id 400 INVALID_REQUEST and an unknown id 404 RESOURCE_NOT_FOUND', async () => {
      const bad = await admin('GET', '/admin/clients/acme');
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as any).error).toMatchObject({
        code: 'INVALID_REQUEST',
        message: 'clientId must be a UUID',
        details: { issues: [{ field: 'clientId', rule: 'uuid' }] },
      });

      const id = '0b8f3a55-3f5e-4c9a-8d61-2a9f6f1c0e77';
      const missing = await admin('PATCH', `/admin/clients/${id}`, { name: 'y' });
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({
        error: {
          code: 'RESOURCE_NOT_FOUND',
          message: `client ${id} was not found`,
          details: { resourceType: 'client', resourceId: id },
        },
      });
    });

    it('answers bad paging 400 INVALID_LIMIT and a non-JSON body 415', async () => {
      expect(((await (await admin('GET', '/admin/clients?limit=0')).json()) as any).error.code).toBe('INVALID_LIMIT');
      const text = await admin('POST', '/admin/clients', '<client/>', { 'content-type': 'application/xml' });
      expect(text.status).toBe(415);
      expect(((await text.json()) as any).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    });

    it('is closed without a token (401) and to tokens without auth:admin (403 insufficient_scope)', async () => {
      const anonymous = await fetch(`${auth.url}/admin/clients`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="location-exchange"');

      const reader = await auth.register({ name: 'Reader', kind: 'RSP' });
      remember(reader);
      const { access_token: token } = await auth.token(reader.clientId, reader.clientSecret);
      const forbidden = await fetch(`${auth.url}/admin/clients`, { headers: { authorization: `Bearer ${token}` } });
      expect(forbidden.status).toBe(403);
      expect(forbidden.headers.get('www-authenticate')).toBe(
        'Bearer realm="location-exchange", error="insufficient_scope", error_description="The access token lacks the scope auth:admin this operation needs", scope="auth:admin"',
      );
      expect(await forbidden.json()).toEqual({
        error: {
          code: 'FORBIDDEN',
          message: 'The access token lacks the scope auth:admin this operation needs',
          details: { requiredScope: 'auth:admin' },
        },
      });
    });
  });

  describe('from the command line', () => {
    it('creates an RSP whose secret gets a token, updates, rotates and disables it; each change is an event', async () => {
      const created = await cli(
        'clients',
        'create',
        '--name',
        'Beta Broadband',
        '--kind',
        'RSP',
        '--scopes',
        'locations:read',
        '--webhook-url',
        'https://beta.example/hooks',
      );
      expect(created.code).toBe(0);
      const rsp = created.json();
      remember(rsp);
      expect(rsp).toMatchObject({
        name: 'Beta Broadband',
        kind: 'RSP',
        enabled: true,
        webhookUrl: 'https://beta.example/hooks',
      });
      expect(await tokenStatus(rsp.clientId, rsp.clientSecret)).toBe(200);

      const got = await cli('clients', 'get', rsp.clientId);
      expect(got.json()).not.toHaveProperty('clientSecret');

      const updated = await cli('clients', 'update', rsp.clientId, '--webhook-url', 'https://beta.example/v2');
      expect(updated.json().webhookUrl).toBe('https://beta.example/v2');

      const rotated = await cli('clients', 'rotate-secret', rsp.clientId);
      remember(rotated.json());
      expect(await tokenStatus(rsp.clientId, rsp.clientSecret)).toBe(401);
      expect(await tokenStatus(rsp.clientId, rotated.json().clientSecret)).toBe(200);

      expect((await cli('clients', 'disable', rsp.clientId)).json().enabled).toBe(false);
      expect(await tokenStatus(rsp.clientId, rotated.json().clientSecret)).toBe(401);

      // The CLI only appends to the outbox; the running service's relay publishes.
      const published = await events.waitForEvents(rsp.clientId, 4);
      expect(published.map((event) => event.type)).toEqual([
        'CLIENT_REGISTERED',
        'CLIENT_UPDATED',
        'CLIENT_SECRET_ROTATED',
        'CLIENT_DISABLED',
      ]);
    });

    it('lists clients and keys', async () => {
      const clients = await cli('clients', 'list', '--limit', '2');
      expect(clients.code).toBe(0);
      expect(clients.json().pagination.limit).toBe(2);
      const keys = await cli('keys', 'list');
      expect(
        keys
          .json()
          .keys.map((key: any) => key.status)
          .sort(),
      ).toEqual(['current', 'next']);
    });

    it('refuses bad input with exit code 2 and rule violations with exit code 1, naming the problem on stderr', async () => {
      const usage = await cli('clients', 'create', '--name', 'x', '--kind', 'ROBOT');
      expect(usage.code).toBe(2);
      expect(usage.stderr).toMatch(/Allowed choices are RSP, OPERATOR, ADMIN/);

      const notUuid = await cli('clients', 'get', 'acme');
      expect(notUuid.code).toBe(2);
      expect(JSON.parse(notUuid.stderr).error.code).toBe('VALIDATION_ERROR');

      const rule = await cli('clients', 'create', '--name', 'x', '--kind', 'RSP', '--scopes', 'locations:write');
      expect(rule.code).toBe(1);
      expect(JSON.parse(rule.stderr).error.message).toMatch(/scopes of RSP clients must be among locations:read/);

      const missing = await cli('clients', 'disable', '0b8f3a55-3f5e-4c9a-8d61-2a9f6f1c0e77');
      expect(missing.code).toBe(1);
      expect(JSON.parse(missing.stderr).error.code).toBe('RESOURCE_NOT_FOUND');
    });
  });

  describe('the bootstrap admin client', () => {
    it('was created on first start and published; a restart with other bootstrap credentials creates nothing', async () => {
      const [registered] = await events.waitForEvents(auth.admin.clientId, 1);
      expect(registered?.data).toEqual({
        clientId: auth.admin.clientId,
        name: 'bootstrap admin',
        kind: 'ADMIN',
        scopes: ['auth:admin', 'webhooks:admin'],
        enabled: true,
      });

      const other = { id: '5d7c1a0e-2b7f-4f59-9a0e-4c0b1d2e3f40', secret: 'another-bootstrap-secret-of-32-chars!!' };
      const second = await startAuth({
        DATABASE_SCHEMA: auth.env.DATABASE_SCHEMA!,
        AUTH_ENCRYPTION_KEY: auth.env.AUTH_ENCRYPTION_KEY!,
        WEBHOOK_SECRET_TRANSPORT_KEY: auth.env.WEBHOOK_SECRET_TRANSPORT_KEY!,
        ADMIN_BOOTSTRAP_CLIENT_ID: other.id,
        ADMIN_BOOTSTRAP_CLIENT_SECRET: other.secret,
        LOG_LEVEL: 'trace',
      });
      try {
        await expect(second.token(other.id, other.secret)).rejects.toThrow(/401/);
        await expect(second.token(auth.admin.clientId, auth.admin.clientSecret)).resolves.toMatchObject({
          scope: 'auth:admin webhooks:admin',
        });
      } finally {
        await second.app.close();
      }
      const { clients }: any = await (await admin('GET', '/admin/clients?limit=1000')).json();
      expect(clients.filter((client: any) => client.kind === 'ADMIN')).toHaveLength(1);
    });
  });

  describe('the bootstrap service client', () => {
    it('is created at start as the SERVICE client with locations:read and locations:internal, once; a restart keeps it', async () => {
      const service = { clientId: randomUUID(), clientSecret: 'the-internal-services-secret-of-32-chars' };
      const env = {
        DATABASE_SCHEMA: auth.env.DATABASE_SCHEMA!,
        AUTH_ENCRYPTION_KEY: auth.env.AUTH_ENCRYPTION_KEY!,
        WEBHOOK_SECRET_TRANSPORT_KEY: auth.env.WEBHOOK_SECRET_TRANSPORT_KEY!,
        SERVICE_BOOTSTRAP_CLIENT_ID: service.clientId,
        SERVICE_BOOTSTRAP_CLIENT_SECRET: service.clientSecret,
      };
      // The second start finds the client and creates nothing: the same secret still works.
      for (let start = 0; start < 2; start += 1) {
        const started = await startAuth(env);
        try {
          await expect(started.token(service.clientId, service.clientSecret)).resolves.toMatchObject({
            scope: 'locations:read locations:internal',
          });
        } finally {
          await started.app.close();
        }
      }
      const [registered] = await events.waitForEvents(service.clientId, 1);
      expect(registered?.data).toEqual({
        clientId: service.clientId,
        name: 'internal services',
        kind: 'SERVICE',
        scopes: ['locations:read', 'locations:internal'],
        enabled: true,
      });
      const reply = await admin('GET', `/admin/clients/${service.clientId}`);
      expect(await reply.json()).toMatchObject({ clientId: service.clientId, kind: 'SERVICE' });
      // The admin API cannot give its scope to another kind, nor any other scope to it.
      const widened = await admin('PATCH', `/admin/clients/${service.clientId}`, { scopes: ['locations:write'] });
      expect(widened.status).toBe(400);
    });

    it('that an earlier version created as an OPERATOR with locations:read becomes the SERVICE client at start', async () => {
      // Versions before the SERVICE kind bootstrapped the client like this (an admin registering it stands in here).
      const earlier = await admin('POST', '/admin/clients', {
        name: 'internal services',
        kind: 'OPERATOR',
        scopes: ['locations:read'],
      });
      expect(earlier.status).toBe(201);
      const { clientId, clientSecret }: any = await earlier.json();
      const env = {
        DATABASE_SCHEMA: auth.env.DATABASE_SCHEMA!,
        AUTH_ENCRYPTION_KEY: auth.env.AUTH_ENCRYPTION_KEY!,
        WEBHOOK_SECRET_TRANSPORT_KEY: auth.env.WEBHOOK_SECRET_TRANSPORT_KEY!,
        SERVICE_BOOTSTRAP_CLIENT_ID: clientId,
        SERVICE_BOOTSTRAP_CLIENT_SECRET: clientSecret,
      };
      const tokenAfterStart = async () => {
        const started = await startAuth(env);
        try {
          return await started.token(clientId, clientSecret);
        } finally {
          await started.app.close();
        }
      };
      await expect(tokenAfterStart()).resolves.toMatchObject({ scope: 'locations:read locations:internal' });
      const [, updated] = await events.waitForEvents(clientId, 2);
      expect(updated?.type).toBe('CLIENT_UPDATED');
      expect(updated?.data).toMatchObject({ kind: 'SERVICE', scopes: ['locations:read', 'locations:internal'] });

      // An admin may narrow its scopes; the next start gives them back (the export worker needs both).
      expect((await admin('PATCH', `/admin/clients/${clientId}`, { scopes: ['locations:internal'] })).status).toBe(200);
      await expect(tokenAfterStart()).resolves.toMatchObject({ scope: 'locations:read locations:internal' });
    });

    it('whose id another kind of client holds is not created, and that client is left as it was', async () => {
      const started = await startAuth({
        DATABASE_SCHEMA: auth.env.DATABASE_SCHEMA!,
        AUTH_ENCRYPTION_KEY: auth.env.AUTH_ENCRYPTION_KEY!,
        WEBHOOK_SECRET_TRANSPORT_KEY: auth.env.WEBHOOK_SECRET_TRANSPORT_KEY!,
        SERVICE_BOOTSTRAP_CLIENT_ID: auth.admin.clientId,
        SERVICE_BOOTSTRAP_CLIENT_SECRET: 'another-internal-secret-of-32-chars!!',
      });
      try {
        await expect(started.token(auth.admin.clientId, 'another-internal-secret-of-32-chars!!')).rejects.toThrow(
          /401/,
        );
        await expect(started.token(auth.admin.clientId, auth.admin.clientSecret)).resolves.toMatchObject({
          scope: 'auth:admin webhooks:admin',
        });
      } finally {
        await started.app.close();
      }
    });
  });

  describe('where secrets never appear', () => {
    it('is not stored in plain text: secrets hashed with scrypt, webhook secrets and private keys sealed', async () => {
      const db = new Client({ connectionString: requireEnv('DATABASE_URL') });
      await db.connect();
      try {
        const schema = auth.env.DATABASE_SCHEMA!;
        const clients = await db.query(`SELECT * FROM "${schema}".clients`);
        const keys = await db.query(`SELECT * FROM "${schema}".signing_keys`);
        const dump = JSON.stringify([clients.rows, keys.rows]);
        for (const secret of [...clientSecrets, ...webhookSecrets]) expect(dump).not.toContain(secret);
        for (const row of clients.rows) expect(row.secret_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
        expect(dump).not.toMatch(/PRIVATE KEY/);
      } finally {
        await db.end();
      }
    });

    it('is in no event in clear: the client secret never, the webhook secret only sealed', () => {
      const all = events.messages.map((message) => message.value).join('\n');
      expect(all).toContain('webhookSecretSealed');
      for (const secret of [...clientSecrets, ...webhookSecrets]) expect(all).not.toContain(secret);
    });

    it('is in no log line, at log level trace: no secret and no key', () => {
      const logs = output.join('');
      expect(logs).toContain('"service":"auth"');
      const keys = [auth.env.AUTH_ENCRYPTION_KEY!, auth.env.WEBHOOK_SECRET_TRANSPORT_KEY!];
      for (const secret of [...clientSecrets, ...webhookSecrets, ...keys]) expect(logs).not.toContain(secret);
    });
  });
});
