// The first calls an RSP makes, through the TypeScript client generated from the served /openapi-rsp.json
// (openapi-typescript's types with openapi-fetch): a token by client credentials, a location by id, the statistics, an
// export polled to COMPLETED, a new link for it, and its file. .ci/openapi/clients.sh copies this file beside the
// generated types, checks it with tsc (strict) and runs it; it exits non-zero on the first step that fails.
//
// Environment: BASE_URL, RSP_CLIENT_ID, RSP_CLIENT_SECRET, LOCATION_ID (a location the operator created), and
// EXPORT_TIMEOUT_SECONDS.
import createClient from 'openapi-fetch';
import type { components, paths } from './openapi-rsp';

type ExportStatus = components['schemas']['ExportStatus'];
type JsonExportFile = components['schemas']['JsonExportFile'];

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set`);
  return value;
};

const baseUrl = env('BASE_URL');
const locationId = env('LOCATION_ID');
const deadline = Date.now() + Number(env('EXPORT_TIMEOUT_SECONDS')) * 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

async function main(): Promise<void> {
  const anonymous = createClient<paths>({ baseUrl });
  const token = await anonymous.POST('/oauth/token', {
    body: {
      grant_type: 'client_credentials',
      client_id: env('RSP_CLIENT_ID'),
      client_secret: env('RSP_CLIENT_SECRET'),
      scope: 'locations:read',
    },
    bodySerializer: (body) => new URLSearchParams(body as Record<string, string>).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  check(token.data !== undefined, `token: ${token.response.status} ${JSON.stringify(token.error)}`);
  console.log(`token: ${token.data.token_type}, expires in ${token.data.expires_in} s`);
  const api = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${token.data.access_token}` } });

  // The read side applies the operator's write shortly after it: a 404 until then.
  let location = await api.GET('/locations/{id}', { params: { path: { id: locationId } } });
  while (location.response.status === 404 && Date.now() < deadline) {
    await sleep(200);
    location = await api.GET('/locations/{id}', { params: { path: { id: locationId } } });
  }
  check(location.data !== undefined, `location: ${location.response.status} ${JSON.stringify(location.error)}`);
  check(location.data.id === locationId, `location: another id, ${location.data.id}`);
  console.log(
    `location: ${location.data.id} in ${location.data.geography.locality}, ETag ${location.response.headers.get('etag')}`,
  );

  // The statistics projection counts the location shortly after the write too.
  const countActive = () => api.GET('/locations/statistics', { params: { query: { status: ['ACTIVE'] } } });
  let statistics = await countActive();
  while (statistics.data !== undefined && statistics.data.totalCount === 0 && Date.now() < deadline) {
    await sleep(200);
    statistics = await countActive();
  }
  check(statistics.data !== undefined, `statistics: ${statistics.response.status} ${JSON.stringify(statistics.error)}`);
  check(statistics.data.totalCount >= 1, `statistics: no ACTIVE location, though the one read is`);
  console.log(`statistics: ${statistics.data.totalCount} ACTIVE`);

  const accepted = await api.POST('/locations/exports', { body: { format: 'json' } });
  check(accepted.data !== undefined, `export: ${accepted.response.status} ${JSON.stringify(accepted.error)}`);
  const id = accepted.data.requestId;
  let status: ExportStatus | undefined;
  for (;;) {
    const polled = await api.GET('/locations/exports/{id}', { params: { path: { id } } });
    check(polled.data !== undefined, `export status: ${polled.response.status} ${JSON.stringify(polled.error)}`);
    status = polled.data;
    if (status.status !== 'PENDING' || Date.now() >= deadline) break;
    await sleep(500);
  }
  // The discriminator narrows the union: only a COMPLETED export has exportUrl and totalCount.
  check(status.status === 'COMPLETED', `export ${id}: ${JSON.stringify(status)}`);
  console.log(`export: ${id} COMPLETED, ${status.totalCount} locations, ${status.sizeBytes} bytes`);

  const renewed = await api.POST('/locations/exports/{id}/link', { params: { path: { id } } });
  check(renewed.data?.status === 'COMPLETED', `link: ${renewed.response.status} ${JSON.stringify(renewed.error)}`);
  const download = await fetch(renewed.data.exportUrl);
  check(download.ok, `download: ${download.status}`);
  const file = (await download.json()) as JsonExportFile;
  check(file.totalCount === status.totalCount, `file: totalCount ${file.totalCount}, not ${status.totalCount}`);
  check(
    file.locations.some((item) => item.id === locationId),
    `file: without location ${locationId}`,
  );
  console.log(`file: ${file.locations.length} locations, the one read among them`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
