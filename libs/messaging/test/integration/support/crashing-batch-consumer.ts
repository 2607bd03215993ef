/**
 * A process that runs one batch consumer of a PostgresEventLog, so a test can SIGKILL it for real. Its handler marks
 * the messages of each batch consumed one by one and writes every marked offset to stdout; in the HANG_IN_BATCH-th
 * batch it stops after HANG_AFTER_MARKS marks and never returns, so the log never stores what it marked there (the log
 * stores marked offsets only after the handler returns). Without HANG_IN_BATCH every batch returns normally.
 *
 * Stdout, one line each: `joined`, `batch <n> from <offset>`, `consumed <offset>`, `hanging in batch <n>`,
 * `returned from batch <n>`.
 *
 * Env: DATABASE_URL, EVENT_LOG_SCHEMA, TOPIC, GROUP_ID, MAX_BATCH_SIZE, HANG_IN_BATCH and HANG_AFTER_MARKS (optional).
 * Run with: node -r ./libs/testing/register-swc.js <this file>
 */
import { Pool } from 'pg';
import { PostgresEventLog } from '../../../src';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is required`);
  return value;
};

const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** Never settles, and keeps the event loop alive (an unsettled promise alone would let the process exit). */
function hangForever(): Promise<never> {
  return new Promise<never>(() => {
    setInterval(() => undefined, 60_000);
  });
}

async function main(): Promise<void> {
  const hangInBatch = process.env['HANG_IN_BATCH'] ? Number(process.env['HANG_IN_BATCH']) : undefined;
  const hangAfterMarks = Number(process.env['HANG_AFTER_MARKS'] ?? '0');
  const pool = new Pool({ connectionString: env('DATABASE_URL'), max: 4 });
  const log = new PostgresEventLog(pool, {
    schema: env('EVENT_LOG_SCHEMA'),
    maxBatchSize: Number(env('MAX_BATCH_SIZE')),
    pollIntervalMs: 100,
  });
  let batches = 0;
  await log.subscribeBatches({
    groupId: env('GROUP_ID'),
    topics: [env('TOPIC')],
    fromBeginning: true,
    onEvent: (event) => {
      if (event.type === 'joined') say('joined');
      else if (event.type === 'crashed') say(`crashed ${event.error.message}`);
    },
    handleBatch: async (batch, control) => {
      batches += 1;
      const n = batches;
      say(`batch ${n} from ${batch.messages[0]!.offset}`);
      let marks = 0;
      for (const message of batch.messages) {
        if (n === hangInBatch && marks === hangAfterMarks) {
          say(`hanging in batch ${n}`);
          await hangForever();
        }
        control.markConsumed(message.offset);
        marks += 1;
        say(`consumed ${message.offset}`);
      }
      if (n === hangInBatch) {
        // Marked the whole batch: hang before returning all the same.
        say(`hanging in batch ${n}`);
        await hangForever();
      }
      say(`returned from batch ${n}`);
    },
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`crashing batch consumer failed: ${String(error)}\n`);
  process.exit(1);
});
