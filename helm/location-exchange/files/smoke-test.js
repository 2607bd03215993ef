// The chart's `helm test`: run with `node -e` in the services' own image (it has node, no shell or curl), against
// the in-cluster Services. Every step names what it expected and what it got; the first failure exits 1.
//   1. /health/ready of the six services
//   2. a token for the admin client (Secret keys ADMIN_CLIENT_ID / ADMIN_CLIENT_SECRET), scope auth:admin, and with
//      it the internal services' client that auth created at start (GET /admin/clients/<SERVICE_CLIENT_ID>)
//   3. a token for that client, scope locations:read: admin clients hold only auth:admin and webhooks:admin, the
//      reads below need locations:read
//   4. GET /locations/statistics (statistics-projection): 200 with a numeric totalCount
//   5. GET /locations?limit=1 (location-query): 200 with a page; when it holds a location, GET /locations/<its id> must
//      answer 200 with that location (a real read); then GET /locations/<random uuid>: 404 RESOURCE_NOT_FOUND. The
//      smoke test writes nothing: it may run against a production release.
const { randomUUID } = require('node:crypto');

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const ATTEMPTS = 15;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A Service answers a second or two after its pods are Ready (kube-proxy sync): retry connection errors and 502-504.
async function call(step, url, init = {}) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
      const text = await response.text();
      if (![502, 503, 504].includes(response.status) || attempt === ATTEMPTS) {
        let body;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        return { status: response.status, text, body };
      }
    } catch (error) {
      if (attempt === ATTEMPTS) throw new Error(`${step}: ${init.method ?? 'GET'} ${url} failed: ${error.message}`);
    }
    await sleep(2_000);
  }
}

function expect(step, condition, response, expected) {
  if (!condition) {
    throw new Error(`${step}: expected ${expected}, got HTTP ${response.status}: ${response.text.slice(0, 500)}`);
  }
  console.log(`ok   ${step}`);
}

async function token(step, clientId, clientSecret, scope) {
  const response = await call(step, `${env('AUTH_URL')}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(),
  });
  expect(
    step,
    response.status === 200 && typeof response.body?.access_token === 'string',
    response,
    `200 with an access_token (scope ${scope})`,
  );
  return response.body.access_token;
}

async function main() {
  for (const entry of env('HEALTH_URLS').split(',')) {
    const [name, url] = entry.split('=');
    const step = `${name} /health/ready`;
    const response = await call(step, `${url}/health/ready`);
    expect(step, response.status === 200, response, '200');
  }

  const adminToken = await token(
    'admin client token',
    env('ADMIN_CLIENT_ID'),
    env('ADMIN_CLIENT_SECRET'),
    'auth:admin',
  );
  const serviceClientId = env('SERVICE_CLIENT_ID');
  const client = await call('service client registered', `${env('AUTH_URL')}/admin/clients/${serviceClientId}`, {
    headers: { authorization: `Bearer ${adminToken}` },
  });
  expect(
    'service client registered',
    client.status === 200 && client.body?.kind === 'SERVICE',
    client,
    `200 with the SERVICE client ${serviceClientId}`,
  );

  const readToken = await token(
    'service client token',
    serviceClientId,
    env('SERVICE_CLIENT_SECRET'),
    'locations:read',
  );
  const bearer = { headers: { authorization: `Bearer ${readToken}` } };

  const statistics = await call('GET /locations/statistics', `${env('STATISTICS_URL')}/locations/statistics`, bearer);
  expect(
    'GET /locations/statistics',
    statistics.status === 200 && typeof statistics.body?.totalCount === 'number',
    statistics,
    '200 with a numeric totalCount',
  );

  const page = await call('GET /locations?limit=1', `${env('LOCATION_QUERY_URL')}/locations?limit=1`, bearer);
  expect(
    'GET /locations?limit=1',
    page.status === 200 && Array.isArray(page.body?.locations) && typeof page.body?.pagination?.total === 'number',
    page,
    '200 with a page of locations',
  );
  const first = page.body.locations[0];
  if (first === undefined) {
    console.log('--   GET /locations/<id>: the release holds no location yet, no real read');
  } else {
    const read = await call('GET /locations/<id>', `${env('LOCATION_QUERY_URL')}/locations/${first.id}`, bearer);
    expect(
      'GET /locations/<id>',
      read.status === 200 && read.body?.id === first.id,
      read,
      `200 with location ${first.id}`,
    );
  }

  const missing = await call(
    'GET /locations/<unknown id>',
    `${env('LOCATION_QUERY_URL')}/locations/${randomUUID()}`,
    bearer,
  );
  expect(
    'GET /locations/<unknown id>',
    missing.status === 404 && missing.body?.error?.code === 'RESOURCE_NOT_FOUND',
    missing,
    '404 RESOURCE_NOT_FOUND',
  );

  console.log('smoke test passed');
}

main().catch((error) => {
  console.error(`FAIL ${error.message}`);
  process.exit(1);
});
