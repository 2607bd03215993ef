import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Counter } from 'prom-client';
import type { DataSource, QueryRunner } from 'typeorm';
import type { ValidationIssue } from '@lx/contracts';
import {
  decideLocation,
  type DomainError,
  evolveLocation,
  type ExistingGroups,
  type LocationCommand,
  type LocationEvent,
  type LocationState,
  referencedGroupIds,
  ValidationFailedError,
} from '@lx/domain';
import { Clock, MetricsRegistry } from '@lx/platform';
import {
  ConcurrentWriteError,
  EventStore,
  type EventStoreTransaction,
  type StreamAppend,
} from '../../../event-store/event-store';
import { locationIndex } from '../../../location/commands/location-writer';
import { ImportFileRejectedError } from '../../import.errors';
import { IMPORT_OPTIONS, type ImportOptions } from '../../import-options';
import { ImportFileError, type ImportRow } from '../../infrastructure/import-row';
import {
  type BatchOutcome,
  type ImportMode,
  type ImportRejection,
  type ImportReport,
  ImportReportBuilder,
} from './import-report';

export interface ImportLocationsCommand {
  /** The file's rows in order, as the readers yield them (small arrays). */
  rows: AsyncIterable<ImportRow[]>;
  mode: ImportMode;
  correlationId?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A batch decided and serialized, ready to be written. */
type PreparedBatch = Awaited<ReturnType<ImportLocationsHandler['prepare']>>;

const MAX_ATTEMPTS = 3;

/** One location's part of a batch: its stored version, its state as the batch goes, the events decided so far. */
interface WorkingStream {
  fromVersion: number;
  state: LocationState;
  events: LocationEvent[];
  isGroup: boolean;
}

/**
 * POST /operator/imports: applies a file of locations row by row with the same rules as PUT, in batches.
 *
 * A batch is first prepared outside any transaction: its locations and the groups its rows reference are read without
 * locks, every row is decided in memory, and the events are serialized. It is then committed in one transaction on
 * the import's own connection, which checks what the decisions relied on (updated locations still at their versions,
 * referenced groups still there) and writes events (COPY), state rows and outbox rows; if anything moved meanwhile,
 * the batch is decided again on fresh state. Preparing the next batch overlaps with committing the previous one,
 * unless they share a location, which must then be decided on what the previous batch left. Memory holds two batches
 * and the capped report, whatever the file size.
 *
 * A full-replace import records the ids the file names (valid or not, so a mistyped row never retires its location)
 * in a temporary table of the connection, and when the whole file was read retires every other location that is
 * still in service.
 */
@Injectable()
export class ImportLocationsHandler {
  private readonly logger = new Logger(ImportLocationsHandler.name);
  private readonly rowsTotal: Counter<'outcome'>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly store: EventStore,
    private readonly clock: Clock,
    @Inject(IMPORT_OPTIONS) private readonly options: ImportOptions,
    metrics: MetricsRegistry,
  ) {
    this.rowsTotal = new Counter({
      name: 'location_import_rows_total',
      help: 'Rows of bulk imports by outcome (created, updated, unchanged, rejected, retired)',
      labelNames: ['outcome'],
      registers: [metrics.registry],
    });
  }

  async execute(command: ImportLocationsCommand): Promise<ImportReport> {
    const report = new ImportReportBuilder(command.mode, this.options.maxReportedRejections);
    const fullReplace = command.mode === 'full-replace';
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      if (fullReplace) {
        await runner.query('CREATE TEMP TABLE IF NOT EXISTS import_seen (stream_id uuid PRIMARY KEY)');
        await runner.query('TRUNCATE pg_temp.import_seen');
      }
      await this.applyRows(command, runner, report, fullReplace);
      if (fullReplace) await this.retireMissing(runner, report, command.correlationId);
      const result = report.build();
      this.logger.log({ ...result, rejections: undefined, correlationId: command.correlationId }, 'Import finished');
      return result;
    } finally {
      if (fullReplace) await runner.query('DROP TABLE IF EXISTS pg_temp.import_seen').catch(() => undefined);
      await runner.release();
    }
  }

  private async applyRows(
    command: ImportLocationsCommand,
    runner: QueryRunner,
    report: ImportReportBuilder,
    recordSeen: boolean,
  ): Promise<void> {
    let batch: ImportRow[] = [];
    let writing: Promise<void> = Promise.resolve();
    let writingIds: ReadonlySet<string> = new Set();
    const write = async (rows: ImportRow[]) => {
      const ids = idsOf(rows);
      // A location also in the batch being written must be decided on the state that batch leaves.
      if ([...ids].some((id) => writingIds.has(id))) await writing;
      const prepared = await this.prepare(rows, ids, command.correlationId);
      await writing;
      writingIds = ids;
      writing = this.commit(prepared, runner, recordSeen).then((outcome) => report.addBatch(rows.length, outcome));
      // Awaited before the next batch is written; marked handled so a failure does not count as unhandled meanwhile.
      writing.catch(() => undefined);
    };
    try {
      for await (const rows of command.rows) {
        for (const row of rows) batch.push(row);
        if (batch.length < this.options.batchSize) continue;
        const full = batch;
        batch = [];
        await write(full);
      }
    } catch (error) {
      if (!(error instanceof ImportFileError)) throw error;
      if (batch.length > 0) await write(batch);
      await writing;
      throw new ImportFileRejectedError(error.message, {
        line: error.line,
        issues: error.issues,
        report: report.build(),
      });
    }
    if (batch.length > 0) await write(batch);
    await writing;
  }

  /**
   * Decides a batch outside any transaction, on an unlocked read of its locations and groups, and serializes its
   * events; `commit` then writes it and verifies what the decisions relied on.
   */
  private async prepare(rows: readonly ImportRow[], ids: ReadonlySet<string>, correlationId: string | undefined) {
    const reader = this.store.reader();
    const stored = await reader.load([...ids], { lock: false });
    const existingGroups = await reader.existingGroups(referencedGroupIds(...rows.map((row) => row.body)), {
      lock: false,
    });
    const now = this.clock.now().toISOString();
    const working = new Map<string, WorkingStream>();
    const outcome: BatchOutcome = { created: 0, updated: 0, unchanged: 0, rejections: [] };
    const usedGroups = new Set<string>();

    for (const row of rows) {
      const id = canonicalId(row.id);
      const rejectionIssues = row.issues.length > 0 ? row.issues : idIssues(row.id);
      if (id === undefined || rejectionIssues.length > 0) {
        outcome.rejections.push(rejectionOf(row, new ValidationFailedError(rejectionIssues)));
        continue;
      }
      let stream = working.get(id);
      if (stream === undefined) {
        const found = stored.get(id);
        stream = {
          fromVersion: found?.version ?? 0,
          state: found?.streamType === 'location' ? (found.data as LocationState) : undefined,
          events: [],
          isGroup: found !== undefined && found.streamType !== 'location',
        };
        working.set(id, stream);
      }
      if (stream.isGroup) {
        outcome.rejections.push({ line: row.line, id, code: 'CONFLICT', message: `${id} is the id of a group` });
        continue;
      }
      const decided = decideLocation(replace(id, row.body, now, existingGroups), stream.state);
      if (!decided.ok) {
        outcome.rejections.push(rejectionOf(row, decided.error));
      } else if (decided.value.length === 0) {
        outcome.unchanged += 1;
      } else {
        if (stream.state === undefined) outcome.created += 1;
        else outcome.updated += 1;
        stream.events.push(...decided.value);
        stream.state = decided.value.reduce(evolveLocation, stream.state);
        const { locationGroupId, address } = stream.state ?? {};
        if (locationGroupId !== undefined) usedGroups.add(locationGroupId);
        if (address?.addressGroupId !== undefined) usedGroups.add(address.addressGroupId);
      }
    }
    const bulk = this.store.prepareBulk(appendsOf(working), { timestamp: now, correlationId });
    return { rows, ids, bulk, outcome, usedGroups, correlationId };
  }

  /**
   * Writes a prepared batch in one transaction on the import's connection. The groups its rows reference are locked
   * (FOR SHARE) and must still exist; a location written by someone else since the read makes the append fail on the
   * unique stream version. Either way the batch is decided again on fresh state, so nothing stale is ever committed.
   */
  private async commit(prepared: PreparedBatch, runner: QueryRunner, recordSeen: boolean): Promise<BatchOutcome> {
    let batch = prepared;
    for (let attempt = 1; ; attempt += 1) {
      const written = await this.store
        .transaction(
          async (transaction) => {
            // The locations this batch updates are locked and must still be at the versions it was decided on, so
            // no other writer appends to them before this commit (new ones collide on the stream version instead).
            const updated = batch.bulk.appends.filter((append) => append.fromVersion > 0);
            const versions = await transaction.lockVersions(updated.map((append) => append.streamId));
            if (updated.some((append) => versions.get(append.streamId) !== append.fromVersion)) return false;
            const groups = [...batch.usedGroups];
            const existing = await transaction.existingGroups({ locationGroupIds: groups, addressGroupIds: groups });
            if (existing.locationGroups.size + existing.addressGroups.size < groups.length) return false;
            await transaction.appendBulk(batch.bulk);
            if (recordSeen && batch.ids.size > 0) {
              await transaction.manager.query(
                'INSERT INTO pg_temp.import_seen SELECT unnest($1::uuid[]) ON CONFLICT DO NOTHING',
                [[...batch.ids]],
              );
            }
            return true;
          },
          runner,
          1,
        )
        .catch((error: unknown) => {
          if (attempt < MAX_ATTEMPTS && error instanceof ConcurrentWriteError) return false;
          throw error;
        });
      if (written) {
        this.count(batch.outcome);
        return batch.outcome;
      }
      if (attempt >= MAX_ATTEMPTS) throw new ConcurrentWriteError();
      batch = await this.prepare(batch.rows, batch.ids, batch.correlationId);
    }
  }

  /** Retires, in id order and in batches, every location in service whose id the file did not name. */
  private async retireMissing(
    runner: QueryRunner,
    report: ImportReportBuilder,
    correlationId: string | undefined,
  ): Promise<void> {
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const candidates = (
        (await runner.query(
          `SELECT stream_id FROM aggregate_state a
            WHERE stream_type = 'location' AND stream_id > $1
              AND (serviceability_status IS NULL OR serviceability_status NOT IN ('CANCELLED', 'RETIRED'))
              AND NOT EXISTS (SELECT 1 FROM pg_temp.import_seen s WHERE s.stream_id = a.stream_id)
            ORDER BY stream_id LIMIT $2`,
          [after, this.options.batchSize],
        )) as { stream_id: string }[]
      ).map((row) => row.stream_id);
      const last = candidates[candidates.length - 1];
      if (last === undefined) return;
      const retired = await this.store.transaction(
        (transaction) => this.retire(transaction, candidates, correlationId),
        runner,
      );
      report.addRetired(retired);
      this.rowsTotal.inc({ outcome: 'retired' }, retired);
      after = last;
    }
  }

  private async retire(
    transaction: EventStoreTransaction,
    ids: readonly string[],
    correlationId: string | undefined,
  ): Promise<number> {
    const stored = await transaction.load(ids);
    const now = this.clock.now().toISOString();
    const working = new Map<string, WorkingStream>();
    for (const [id, found] of stored) {
      // Decided again on the locked state: a location written meanwhile may have left service already.
      const decided = decideLocation({ type: 'RetireLocation', locationId: id, now }, found.data as LocationState);
      if (!decided.ok || decided.value.length === 0) continue;
      working.set(id, {
        fromVersion: found.version,
        state: decided.value.reduce(evolveLocation, found.data as LocationState),
        events: decided.value,
        isGroup: false,
      });
    }
    await transaction.appendBulk(this.store.prepareBulk(appendsOf(working), { timestamp: now, correlationId }));
    return working.size;
  }

  private count(outcome: BatchOutcome): void {
    this.rowsTotal.inc({ outcome: 'created' }, outcome.created);
    this.rowsTotal.inc({ outcome: 'updated' }, outcome.updated);
    this.rowsTotal.inc({ outcome: 'unchanged' }, outcome.unchanged);
    this.rowsTotal.inc({ outcome: 'rejected' }, outcome.rejections.length);
  }
}

function replace(locationId: string, body: unknown, now: string, existingGroups: ExistingGroups): LocationCommand {
  return { type: 'ReplaceLocation', locationId, body, now, existingGroups };
}

function appendsOf(working: ReadonlyMap<string, WorkingStream>): StreamAppend[] {
  const appends: StreamAppend[] = [];
  for (const [streamId, stream] of working) {
    if (stream.events.length === 0 || stream.state === undefined) continue;
    appends.push({
      streamId,
      streamType: 'location',
      fromVersion: stream.fromVersion,
      events: stream.events,
      index: locationIndex(stream.state),
    });
  }
  return appends;
}

function idsOf(rows: readonly ImportRow[]): ReadonlySet<string> {
  const ids = new Set<string>();
  for (const row of rows) {
    const id = canonicalId(row.id);
    if (id !== undefined) ids.add(id);
  }
  return ids;
}

function canonicalId(id: string | undefined): string | undefined {
  return id !== undefined && UUID.test(id) ? id.toLowerCase() : undefined;
}

function idIssues(id: string | undefined): ValidationIssue[] {
  if (id === undefined) {
    return [{ field: 'id', rule: 'required', message: 'id is required: an import row names the location it writes' }];
  }
  return UUID.test(id) ? [] : [{ field: 'id', rule: 'uuid', message: 'id must be a UUID' }];
}

function rejectionOf(row: ImportRow, error: DomainError): ImportRejection {
  const rejection: ImportRejection = { line: row.line, code: error.code, message: error.message };
  if (row.id !== undefined) rejection.id = row.id;
  if (error.details !== undefined) rejection.details = error.details;
  return rejection;
}
