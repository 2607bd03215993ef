import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClientView, Endpoint, ImportReport, RegisteredClient, StatisticsResponse } from '@lx/contracts';
import { clientCredentialsToken } from '@lx/platform';
import { demoGroupPlan, demoLocations } from './demo-data';

/** A client of the demo, with the secret it was given at registration. */
export interface DemoClient {
  clientId: string;
  clientSecret: string;
}

/** What the first start set up, kept in <data folder>/demo.json and printed at every start. */
export interface Demo {
  /** Its webhookUrl is the demo receiver on the public port of the latest start. */
  rsp: DemoClient & { webhookSecret: string; webhookUrl: string };
  operator: DemoClient;
  /** A location of the demo data set, for the printed read command. */
  sampleLocationId: string;
  locations: number;
}

async function call<T>(baseUrl: string, method: string, path: string, token: string, body?: unknown): Promise<T> {
  const isText = typeof body === 'string';
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': isText ? 'application/x-ndjson' : 'application/json' }),
    },
    body: body === undefined ? undefined : isText ? body : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

/** A token of a demo client, by the client-credentials grant at the public token endpoint. */
function accessToken(baseUrl: string, client: DemoClient): Promise<string> {
  return clientCredentialsToken({
    tokenUrl: `${baseUrl}/oauth/token`,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
  });
}

/** What ensureDemo needs: the public port's base URL, the admin client, where the demo RSP's webhooks go now. */
interface DemoOptions {
  baseUrl: string;
  admin: DemoClient;
  webhookUrl: string;
  file: string;
  say: (line: string) => void;
}

function save(file: string, demo: Demo): Demo {
  writeFileSync(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return demo;
}

/**
 * The demo of this data folder: made at the first start, read from `file` at later ones, with the demo RSP's webhook
 * pointed at this start's receiver.
 */
export async function ensureDemo(options: DemoOptions): Promise<Demo> {
  if (!existsSync(options.file)) return createDemo(options);
  const demo = JSON.parse(readFileSync(options.file, 'utf8')) as Demo;
  return demo.rsp.webhookUrl === options.webhookUrl ? demo : moveDemoWebhook(options, demo);
}

/** The dispatcher learns a client's webhook URL from auth's CLIENT_UPDATED event, a moment after auth changed it. */
async function untilDispatcherDeliversTo(
  baseUrl: string,
  adminToken: string,
  clientId: string,
  webhookUrl: string,
): Promise<void> {
  for (const deadline = Date.now() + 30_000; ; await sleep(100)) {
    const endpoint = await call<Endpoint>(baseUrl, 'GET', `/admin/webhooks/endpoints/${clientId}`, adminToken);
    if (endpoint.webhookUrl === webhookUrl) return;
    if (Date.now() > deadline) throw new Error(`the webhook dispatcher still delivers to ${endpoint.webhookUrl}`);
  }
}

/**
 * The demo receiver is on this start's public port, which `--port` (or `--port 0`) can change from one start to the
 * next: the demo RSP's webhook URL is changed as an administrator changes it (PATCH /admin/clients/{id}, so auth
 * publishes CLIENT_UPDATED), and the start waits until the dispatcher has taken it over, so the notifications of the
 * printed quickstart arrive at this start's receiver. Kept in `file` once auth has it.
 */
async function moveDemoWebhook(options: DemoOptions, demo: Demo): Promise<Demo> {
  const { baseUrl, webhookUrl } = options;
  const adminToken = await accessToken(baseUrl, options.admin);
  await call<ClientView>(baseUrl, 'PATCH', `/admin/clients/${demo.rsp.clientId}`, adminToken, { webhookUrl });
  await untilDispatcherDeliversTo(baseUrl, adminToken, demo.rsp.clientId, webhookUrl);
  options.say(`the demo RSP's webhook URL moved from ${demo.rsp.webhookUrl} to ${webhookUrl}`);
  return save(options.file, { ...demo, rsp: { ...demo.rsp, webhookUrl } });
}

/**
 * The demo of a first start, made through the public API as the operator and an administrator would: a demo operator
 * client creates the groups and imports the demo data set (POST /operator/imports, so read models, statistics and
 * events are real); once the read side has counted every location, a demo RSP is registered with its webhook at the
 * built-in receiver (after the import, so the demo data does not flood it).
 */
async function createDemo(options: DemoOptions): Promise<Demo> {
  const { baseUrl, say } = options;
  const adminToken = await accessToken(baseUrl, options.admin);
  const operator = await call<RegisteredClient>(baseUrl, 'POST', '/admin/clients', adminToken, {
    name: 'Demo operator',
    kind: 'OPERATOR',
  });
  const operatorToken = await accessToken(baseUrl, operator);

  const plan = demoGroupPlan();
  const groupIds = new Map<string, string>();
  for (const group of plan.locationGroups) {
    const created = await call<{ id: string }>(baseUrl, 'POST', '/operator/location-groups', operatorToken, {
      name: group.name,
      type: 'OTHER',
    });
    groupIds.set(group.key, created.id);
  }
  for (const group of plan.addressGroups) {
    const created = await call<{ id: string }>(baseUrl, 'POST', '/operator/address-groups', operatorToken, {
      name: group.name,
      type: 'MDU_COMPLEX',
    });
    groupIds.set(group.key, created.id);
  }
  const locations = demoLocations(groupIds);
  say(`loading the demo data: ${locations.length} locations through POST /operator/imports`);
  const ndjson = `${locations.map((location) => JSON.stringify(location)).join('\n')}\n`;
  const report = await call<ImportReport>(baseUrl, 'POST', '/operator/imports', operatorToken, ndjson);
  if (report.rejected > 0) {
    throw new Error(`the demo import rejected ${report.rejected} rows: ${JSON.stringify(report.rejections[0])}`);
  }

  for (const deadline = Date.now() + 120_000; ; await sleep(250)) {
    const statistics = await call<StatisticsResponse>(baseUrl, 'GET', '/locations/statistics', operatorToken);
    if (statistics.totalCount >= locations.length) break;
    if (Date.now() > deadline) throw new Error(`the read side counted ${statistics.totalCount} demo locations`);
  }
  const rsp = await call<RegisteredClient>(baseUrl, 'POST', '/admin/clients', adminToken, {
    name: 'Demo RSP',
    kind: 'RSP',
    webhookUrl: options.webhookUrl,
  });
  return save(options.file, {
    rsp: {
      clientId: rsp.clientId,
      clientSecret: rsp.clientSecret,
      webhookSecret: rsp.webhookSecret!,
      webhookUrl: options.webhookUrl,
    },
    operator: { clientId: operator.clientId, clientSecret: operator.clientSecret },
    sampleLocationId: locations.find((location) => location.address?.subunitIdentifier !== undefined)!.id,
    locations: locations.length,
  });
}
