import { Command, InvalidArgumentError, Option } from 'commander';
import { Presets, SingleBar } from 'cli-progress';
import { SCOPES } from '@lx/contracts';
import { clientCredentialsToken } from '@lx/platform';
import { type ImportCliEnvironment, loadImportCliEnvironment } from '../config/import-cli.config';
import { uploadImportFile } from './import-upload';

/**
 * lx-import: the operator staff's bulk import tool. Streams a CSV or NDJSON file to location-command's
 * POST /operator/imports, shows a progress bar with rows/s, and prints the import report as JSON on stdout.
 * Exit status: 0 every row applied, 2 some rows rejected (listed in the report), 1 the import failed.
 */
async function main(argv: string[], env: ImportCliEnvironment): Promise<number> {
  const program = new Command()
    .name('lx-import')
    .description('Bulk-import locations into Location Exchange from a CSV (export layout) or NDJSON file')
    .argument('<file>', 'the file to import (.csv, or .ndjson / .jsonl)')
    .option('--url <url>', 'location-command base URL (or set LX_COMMAND_URL)', env.commandUrl)
    .addOption(
      new Option('--mode <mode>', 'merge, or full-replace (retires locations missing from the file)')
        .choices(['merge', 'full-replace'])
        .default('merge'),
    )
    .option(
      '--confirm-retirements <n>',
      'full-replace: confirm the n locations it is to retire, when that is more than the service retires unasked (the number a refusal gave)',
      wholeNumber,
    )
    .addOption(new Option('--format <format>', 'file format (default: by extension)').choices(['csv', 'ndjson']))
    .option('--token <token>', 'an access token with locations:write (or set LX_ACCESS_TOKEN)')
    .option('--token-url <url>', 'the auth service token endpoint (or set LX_TOKEN_URL)', env.tokenUrl)
    .option('--client-id <id>', 'client id for the client-credentials grant (or set LX_CLIENT_ID)')
    .option('--no-progress', 'no progress bar (for scripts)')
    .showHelpAfterError();
  program.parse(argv);
  const [file] = program.args as [string];
  const options = program.opts<{
    url: string;
    mode: 'merge' | 'full-replace';
    confirmRetirements?: number;
    format?: 'csv' | 'ndjson';
    token?: string;
    tokenUrl: string;
    clientId?: string;
    progress: boolean;
  }>();

  const token = await tokenFor(options, env);
  const bar = new SingleBar(
    {
      format: 'importing [{bar}] {percentage}% | {rows} rows | {rate} rows/s | {elapsed}s',
      hideCursor: true,
      stream: process.stderr,
      noTTYOutput: options.progress,
      notTTYSchedule: 5_000,
    },
    Presets.shades_classic,
  );
  const started = Date.now();
  let rows = 0;
  if (options.progress) bar.start(100, 0, { rows: 0, rate: 0, elapsed: 0 });
  const result = await uploadImportFile({
    baseUrl: options.url,
    file,
    token,
    mode: options.mode,
    confirmRetirements: options.confirmRetirements,
    format: options.format,
    onProgress: (progress) => {
      rows = progress.rowsSent;
      const seconds = (Date.now() - started) / 1000;
      const percentage = progress.totalBytes === 0 ? 100 : (progress.bytesSent / progress.totalBytes) * 100;
      if (options.progress) {
        bar.update(Math.floor(percentage), {
          rows: rows.toLocaleString('en-US'),
          rate: Math.round(rows / Math.max(seconds, 0.001)).toLocaleString('en-US'),
          elapsed: seconds.toFixed(1),
        });
      }
    },
  });
  if (options.progress) bar.stop();

  process.stdout.write(`${JSON.stringify(result.body, null, 2)}\n`);
  const seconds = (Date.now() - started) / 1000;
  if (result.status !== 200) {
    const error = (
      result.body as { error?: { code?: string; message?: string; details?: { wouldRetire?: number } } } | undefined
    )?.error;
    process.stderr.write(`import failed: HTTP ${result.status}${error?.message ? `: ${error.message}` : ''}\n`);
    const wouldRetire = error?.details?.wouldRetire;
    if (wouldRetire !== undefined) process.stderr.write(`to retire them: --confirm-retirements ${wouldRetire}\n`);
    return 1;
  }
  const report = result.body as {
    rowsRead: number;
    created: number;
    updated: number;
    unchanged: number;
    rejected: number;
    retired: number;
  };
  process.stderr.write(
    `${report.rowsRead} rows in ${seconds.toFixed(1)} s (${Math.round(report.rowsRead / seconds)} rows/s): ` +
      `${report.created} created, ${report.updated} updated, ${report.unchanged} unchanged, ` +
      `${report.rejected} rejected, ${report.retired} retired\n`,
  );
  return report.rejected > 0 ? 2 : 0;
}

function wholeNumber(value: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new InvalidArgumentError('must be a whole number of 0 or more');
  return Number(value);
}

async function tokenFor(
  options: { token?: string; tokenUrl: string; clientId?: string },
  env: ImportCliEnvironment,
): Promise<string> {
  const token = options.token ?? env.accessToken;
  if (token !== undefined && token !== '') return token;
  const clientId = options.clientId ?? env.clientId;
  // The secret comes only from the environment: a command-line argument would be visible to every user in `ps`.
  const clientSecret = env.clientSecret;
  if (clientId === undefined || clientSecret === undefined) {
    throw new InvalidArgumentError(
      'give --token (or LX_ACCESS_TOKEN), or --client-id with LX_CLIENT_SECRET in the environment',
    );
  }
  return clientCredentialsToken({ tokenUrl: options.tokenUrl, clientId, clientSecret, scope: SCOPES.locationsWrite });
}

main(process.argv, loadImportCliEnvironment()).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`lx-import: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
