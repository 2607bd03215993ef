import { Command, Option } from 'commander';
import { MultiBar, Presets } from 'cli-progress';
import { type ConfigKey, CONFIG_VARIABLES, loadLxSyncConfig } from './config/lx-sync.config';
import { exitStatusOf, EXIT, LxSyncError } from './errors';
import { LxSync } from './lx-sync';
import { describeCheck } from './use-cases/run-mirror.use-case';
import { type Progress, SILENT_PROGRESS } from './sync/progress';
import type { DriftReport } from './use-cases/verify-mirror.use-case';

const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);

/** A bar on a terminal; elsewhere (CI, a log file) a line per phase and per tenth of the way. */
function progressOf(enabled: boolean): Progress {
  if (!enabled) return SILENT_PROGRESS;
  if (!process.stderr.isTTY) {
    let phase = '';
    let shown = -1;
    return {
      start: (name, total) => {
        phase = name;
        shown = -1;
        log(`${name}${total === undefined ? '' : ` (${total})`}`);
      },
      update: (done, total) => {
        if (total === undefined || total === 0) return;
        const tenth = Math.floor((done / total) * 10);
        if (tenth > shown) {
          shown = tenth;
          log(`${phase}: ${done}/${total} (${tenth * 10}%)`);
        }
      },
      stop: () => undefined,
    };
  }
  const bars = new MultiBar(
    { format: '{phase} [{bar}] {percentage}% | {value}/{total} | {duration_formatted}', hideCursor: true },
    Presets.shades_classic,
  );
  let bar: ReturnType<MultiBar['create']> | undefined;
  return {
    start: (name, total) => {
      bar?.stop();
      // Without a total (the change feed, an export still counting) the bar shows how many so far.
      bar = bars.create(total ?? 0, 0, { phase: name }, total === undefined ? { format: '{phase} | {value}' } : {});
    },
    update: (done, total) => {
      if (total !== undefined) bar?.setTotal(total);
      bar?.update(done);
    },
    stop: () => {
      bar?.stop();
      bars.stop();
    },
  };
}

function printDrift(report: DriftReport, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  for (const item of report.drifted) {
    const what = item.server === undefined ? 'extra' : item.mirror === undefined ? 'missing' : 'stale';
    process.stdout.write(
      `${item.resource}\t${item.id}\t${what}\tserver=${item.server ?? '-'}\tmirror=${item.mirror ?? '-'}\n`,
    );
  }
  const counts = Object.entries(report.counts)
    .map(([resource, { server, mirror }]) => `${resource} ${server}/${mirror}`)
    .join(', ');
  log(
    `verify: ${report.drifted.length === 0 ? 'mirror equal to the operator' : `${report.drifted.length} drifted`}` +
      ` (server/mirror: ${counts}; ${report.requests} requests)`,
  );
}

/** Runs one command with an open mirror, mapping errors to an exit status and a one-line message. */
async function withMirror(
  options: { config?: string; progress?: boolean },
  command: (sync: LxSync) => Promise<number>,
  overrides: Partial<Record<ConfigKey, string | number>> = {},
): Promise<void> {
  let sync: LxSync | undefined;
  try {
    const config = loadLxSyncConfig({ file: options.config, overrides });
    sync = await LxSync.open(config, { progress: progressOf(options.progress !== false) });
    process.exitCode = await command(sync);
  } catch (error) {
    if (error instanceof LxSyncError) log(`lx-sync: ${error.code}: ${error.message}`);
    else log(`lx-sync: unexpected error: ${(error as Error).stack ?? String(error)}`);
    process.exitCode = exitStatusOf(error);
  } finally {
    await sync?.close().catch(() => undefined);
  }
}

export function buildCli(): Command {
  const program = new Command('lx-sync')
    .description(
      'An exact mirror of a Location Exchange API in a PostgreSQL or SQLite database, proven equal by digests.',
    )
    .addHelpText(
      'after',
      `\nConfiguration (a JSON file with --config, then the environment, then flags):\n${Object.entries(
        CONFIG_VARIABLES,
      )
        .map(([key, variable]) => `  ${variable.padEnd(32)} ${key}`)
        .join('\n')}\n\nExit status: 0 ok, 1 drift found (verify), 2 bad configuration, 3 failure.`,
    )
    .exitOverride((error) => {
      process.exit(error.exitCode === 0 ? 0 : EXIT.usage);
    });
  const common = (command: Command) =>
    command
      .addOption(new Option('-c, --config <file>', 'JSON configuration file'))
      .addOption(new Option('--no-progress', 'print no progress'));

  common(program.command('init'))
    .description('full export (with groups and versions) into the mirror, then the change feed; resumable')
    .action(async (options: { config?: string; progress?: boolean }) =>
      withMirror(options, async (sync) => {
        const result = await sync.init.execute();
        log(
          `init: ${result.rows} rows from the export of ${result.exportTimestamp}, then ${result.feed.applied} of ${result.feed.changes} feed changes applied`,
        );
        return EXIT.ok;
      }),
    );

  common(program.command('run'))
    .description('webhook receiver, change-feed catch-up and the daily check with repair; /health and /metrics')
    .addOption(new Option('-p, --port <port>', 'listen port (LX_SYNC_LISTEN_PORT)'))
    .action(async (options: { config?: string; progress?: boolean; port?: string }) =>
      withMirror(
        // A long-running service: its feed reads and checks are logged, not drawn.
        { ...options, progress: false },
        async (sync) => {
          const running = await sync.run(log);
          await new Promise<void>((resolve) => {
            process.once('SIGINT', resolve);
            process.once('SIGTERM', resolve);
          });
          log('lx-sync run: stopping');
          await running.stop();
          return EXIT.ok;
        },
        options.port === undefined ? {} : { listenPort: options.port },
      ),
    );

  common(program.command('verify'))
    .description('compare the mirror with the operator by digest; print the drifted ids; exit 1 on drift')
    .addOption(new Option('--json', 'print the report as JSON'))
    .addOption(new Option('--confirm-delay <ms>', 'wait before confirming a difference (LX_SYNC_CONFIRM_DELAY_MS)'))
    .action(async (options: { config?: string; progress?: boolean; json?: boolean; confirmDelay?: string }) =>
      withMirror(
        options,
        async (sync) => {
          await sync.requireInitialised();
          const report = await sync.verify.execute({ confirmDelayMs: sync.config.confirmDelayMs });
          printDrift(report, options.json === true);
          return report.drifted.length === 0 ? EXIT.ok : EXIT.drift;
        },
        options.confirmDelay === undefined ? {} : { confirmDelayMs: options.confirmDelay },
      ),
    );

  common(program.command('repair'))
    .description('verify, then fetch exactly the drifted ids and make the mirror equal')
    .action(async (options: { config?: string; progress?: boolean }) =>
      withMirror(options, async (sync) => {
        await sync.requireInitialised();
        const report = await sync.verify.execute({ confirmDelayMs: sync.config.confirmDelayMs });
        printDrift(report, false);
        const result = await sync.repair.execute(report.drifted, { confirmDelayMs: sync.config.confirmDelayMs });
        log(`repair: ${result.written} written, ${result.removed} removed`);
        return EXIT.ok;
      }),
    );

  common(program.command('check'))
    .description('the daily check once: statistics and digest compared, drift repaired')
    .action(async (options: { config?: string; progress?: boolean }) =>
      withMirror(options, async (sync) => {
        await sync.requireInitialised();
        log(describeCheck(await sync.check.execute({ confirmDelayMs: sync.config.confirmDelayMs })));
        return EXIT.ok;
      }),
    );

  common(program.command('status'))
    .description('where the mirror stands (JSON)')
    .action(async (options: { config?: string; progress?: boolean }) =>
      withMirror(options, async (sync) => {
        process.stdout.write(`${JSON.stringify(await sync.status(), null, 2)}\n`);
        return EXIT.ok;
      }),
    );
  return program;
}

export async function main(argv: readonly string[]): Promise<void> {
  await buildCli().parseAsync([...argv]);
}
