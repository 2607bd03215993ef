import type { DemoClient, Demo } from './demo-setup';

/** Reads one field of a JSON reply on standard input: node is there wherever npm start ran. */
const field = (name: string) => `node -pe 'JSON.parse(require("fs").readFileSync(0)).${name}'`;

/** The shell commands of the quickstart, in order; each works when pasted after the ones before it. */
export function quickstartCommands(baseUrl: string, demo: Demo): string[] {
  const bearer = '-H "Authorization: Bearer $TOKEN"';
  return [
    `BASE=${baseUrl}`,
    `TOKEN=$(curl -s -d grant_type=client_credentials -d client_id=${demo.rsp.clientId} -d client_secret=${demo.rsp.clientSecret} $BASE/oauth/token | ${field('access_token')})`,
    `curl -s ${bearer} $BASE/locations/${demo.sampleLocationId}`,
    `curl -s ${bearer} $BASE/locations/statistics`,
    `EXPORT=$(curl -s -X POST ${bearer} -H 'Content-Type: application/json' -d '{"format":"csv"}' $BASE/locations/exports | ${field('requestId')})`,
    `curl -s ${bearer} $BASE/locations/exports/$EXPORT`,
    `curl -s $BASE/demo/webhooks`,
  ];
}

function clientLine(role: string, client: DemoClient): string {
  return `  ${role.padEnd(14)} client_id ${client.clientId}   client_secret ${client.clientSecret}`;
}

/** What npm start prints once everything answers. */
export function quickstartText(options: { baseUrl: string; demo: Demo; admin: DemoClient; dataDir: string }): string {
  const { baseUrl, demo } = options;
  return [
    '',
    `Location Exchange is running at ${baseUrl}`,
    `(embedded profile: every service in this process, ${demo.locations} demo locations, data in ${options.dataDir})`,
    '',
    'Clients:',
    clientLine('Demo RSP', demo.rsp),
    `  ${''.padEnd(14)} webhooks go to ${demo.rsp.webhookUrl} (the built-in demo receiver)`,
    clientLine('Demo operator', demo.operator),
    clientLine('Admin', options.admin),
    '',
    'Try it (paste into a shell; the export notification shows up in the last command after a few seconds):',
    '',
    ...quickstartCommands(baseUrl, demo).map((command) => `  ${command}`),
    '',
    `API reference: ${baseUrl}/docs   OpenAPI document: ${baseUrl}/openapi.json`,
    'Stop with Ctrl-C; the data stays (npm start -- --reset starts afresh).',
    '',
  ].join('\n');
}
