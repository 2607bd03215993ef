import 'reflect-metadata';
import { Command, InvalidArgumentError } from 'commander';
import { resolve } from 'node:path';
import { join } from 'node:path';
import { stopTracing } from '@lx/platform';
import { ensureDemo } from './demo/demo-setup';
import { DemoReceiver } from './demo/demo-receiver';
import { quickstartText } from './demo/quickstart';
import { AlreadyRunningError } from './host/data-folder';
import { PortTakenError, startEmbedded } from './host/embedded-host';

const REPO_ROOT = resolve(__dirname, '..', '..', '..');
/** Where the demo RSP's webhooks arrive: its webhook URL on the public port. */
const DEMO_WEBHOOKS = '/demo/webhooks';

function port(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) throw new InvalidArgumentError('not a port number');
  return parsed;
}

const program = new Command('npm start --')
  .description('Location Exchange in one process: every service, embedded PostgreSQL, demo data')
  .option('--port <port>', 'public port (0: any free port)', port, Number(process.env.LX_PORT ?? 8080))
  .option('--data-dir <dir>', 'where everything is kept', process.env.LX_DATA_DIR ?? resolve(REPO_ROOT, '.lx-data'))
  .option('--reset', 'delete the data folder first and start afresh', false)
  .option('--log-level <level>', 'log level of the services', process.env.LOG_LEVEL ?? 'warn')
  .parse();

const options = program.opts<{ port: number; dataDir: string; reset: boolean; logLevel: string }>();
const say = (line: string) => process.stdout.write(`[lx] ${line}\n`);

async function main(): Promise<void> {
  const started = Date.now();
  const embedded = await startEmbedded({ repoRoot: REPO_ROOT, ...options, say });
  say(`services answering in ${((Date.now() - started) / 1000).toFixed(1)} s: ${embedded.baseUrl}`);
  const receiver = new DemoReceiver(DEMO_WEBHOOKS);
  embedded.mount(DEMO_WEBHOOKS, receiver.handle);
  const demo = await ensureDemo({
    baseUrl: embedded.baseUrl,
    admin: embedded.secrets.admin,
    webhookUrl: `${embedded.baseUrl}${DEMO_WEBHOOKS}`,
    file: join(embedded.dataFolder.root, 'demo.json'),
    say,
  }).catch(async (error: unknown) => {
    await embedded.stop();
    throw error;
  });
  receiver.useSecret(demo.rsp.webhookSecret);
  embedded.dataFolder.markInitialised();
  say(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.stdout.write(
    quickstartText({ baseUrl: embedded.baseUrl, demo, admin: embedded.secrets.admin, dataDir: options.dataDir }),
  );
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    say(`${signal}: stopping`);
    embedded
      .stop()
      .then(() => stopTracing())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`stopping failed: ${String(error)}\n`);
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(
    error instanceof AlreadyRunningError || error instanceof PortTakenError
      ? `${error.message}\n`
      : `start-up failed: ${(error as Error)?.stack ?? String(error)}\n`,
  );
  process.exit(1);
});
