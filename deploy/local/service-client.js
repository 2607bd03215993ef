// Ensures the export worker's own API client (kind OPERATOR, scope locations:read only), with which it calls the
// internal endpoints of location-command, location-query and statistics-projection. Prints "<id> <secret>".
//
//   node deploy/local/service-client.js <auth base URL> <name>
//   env: ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET (to register), SERVICE_CLIENT_ID, SERVICE_CLIENT_SECRET (kept if valid)
'use strict';

const [authUrl, name] = process.argv.slice(2);
if (!authUrl || !name) {
  console.error('usage: service-client.js <auth base URL> <name>');
  process.exit(2);
}

async function token(clientId, clientSecret) {
  const response = await fetch(`${authUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  if (!response.ok) return undefined;
  return (await response.json()).access_token;
}

async function main() {
  const { SERVICE_CLIENT_ID: id, SERVICE_CLIENT_SECRET: secret } = process.env;
  // Kept across restarts of the stack; registered again only when auth no longer knows it (a wiped database).
  if (id && secret && (await token(id, secret))) {
    process.stdout.write(`${id} ${secret}`);
    return;
  }
  const admin = await token(process.env.ADMIN_CLIENT_ID, process.env.ADMIN_CLIENT_SECRET);
  if (!admin) throw new Error('the admin client cannot get a token');
  const response = await fetch(`${authUrl}/admin/clients`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, kind: 'OPERATOR', scopes: ['locations:read'] }),
  });
  const body = await response.json();
  if (response.status !== 201)
    throw new Error(`registering ${name} answered ${response.status}: ${JSON.stringify(body)}`);
  process.stdout.write(`${body.clientId} ${body.clientSecret}`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
