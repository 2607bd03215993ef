import { Injectable } from '@nestjs/common';
import { isUuid, type ValidationIssue } from '@lx/contracts';
import {
  ConflictError,
  type DomainError,
  type ExistingGroups,
  type LocationEvent,
  type LocationState,
  referencedGroupIds,
  ValidationFailedError,
} from '@lx/domain';
import { Clock } from '@lx/platform';
import { type BulkAppend, BulkEventAppender } from '../../../event-store/bulk-event.appender';
import { EventStore } from '../../../event-store/event-store';
import type { EventStoreTransaction } from '../../../event-store/event-store.transaction';
import type { StoredStream, StreamAppend } from '../../../event-store/event-store.types';
import { LOCATION_DECIDER } from '../../../location/domain/location.decider';
import type { ImportRow } from '../../infrastructure/import-row';
import type { BatchOutcome, ImportRejection } from './import-report';

/** A batch decided and serialized, ready to be written by `ImportBatchCommitter`. */
export interface PreparedBatch {
  rows: readonly ImportRow[];
  /** The canonical ids the rows name (valid UUIDs only). */
  ids: ReadonlySet<string>;
  bulk: BulkAppend;
  outcome: BatchOutcome;
  /** Groups the written locations reference: they must still exist when the batch commits. */
  usedGroups: ReadonlySet<string>;
  correlationId: string | undefined;
}

/** What the rules decided for the rows of one batch. */
export interface DecidedBatch {
  appends: StreamAppend[];
  outcome: BatchOutcome;
  usedGroups: Set<string>;
}

/**
 * One location's part of a batch: its stored version, its state as the batch goes, the events decided so far; or why
 * no row can write it (its id is a group's).
 */
interface WorkingStream {
  fromVersion: number;
  state: LocationState;
  events: LocationEvent[];
  refused?: ConflictError;
}

/**
 * Prepares a batch of import rows outside any transaction: reads its locations and the groups its rows reference
 * without locks, decides every row in memory with the rules of PUT, and serializes the events for COPY. Nothing it
 * read is trusted at commit: `ImportBatchCommitter` checks it again under locks (or, at its last attempt, prepares it
 * again under them).
 */
@Injectable()
export class ImportBatchPreparer {
  constructor(
    private readonly store: EventStore,
    private readonly bulkAppender: BulkEventAppender,
    private readonly clock: Clock,
  ) {}

  prepare(rows: readonly ImportRow[], ids: ReadonlySet<string>, correlationId: string | undefined) {
    return this.prepareOn(this.store.reader(), false, rows, ids, correlationId);
  }

  /**
   * The same, read inside `transaction` under the locks of a single write (its locations FOR UPDATE in id order, the
   * groups its rows reference FOR SHARE): what the batch is decided on cannot change before that transaction commits.
   */
  prepareLocked(
    transaction: EventStoreTransaction,
    rows: readonly ImportRow[],
    ids: ReadonlySet<string>,
    correlationId: string | undefined,
  ): Promise<PreparedBatch> {
    return this.prepareOn(transaction, true, rows, ids, correlationId);
  }

  private async prepareOn(
    reader: EventStoreTransaction,
    lock: boolean,
    rows: readonly ImportRow[],
    ids: ReadonlySet<string>,
    correlationId: string | undefined,
  ): Promise<PreparedBatch> {
    const stored = await reader.load([...ids], { lock });
    const existingGroups = await reader.existingGroups(referencedGroupIds(...rows.map((row) => row.body)), { lock });
    const now = this.clock.now().toISOString();
    const { appends, outcome, usedGroups } = decideImportBatch(rows, stored, existingGroups, now);
    const bulk = this.bulkAppender.prepare(appends, { timestamp: now, correlationId });
    return { rows, ids, bulk, outcome, usedGroups, correlationId };
  }
}

/**
 * Decides the rows of a batch in file order on the stored streams, with the rules every location write runs
 * (`LOCATION_DECIDER`): a row of a location named earlier in the batch is decided on the state the earlier row left.
 * Rows without a valid id, rows the readers could not decode, ids of groups and rows the rules refuse are rejections;
 * a row equal to the location is unchanged.
 */
export function decideImportBatch(
  rows: readonly ImportRow[],
  stored: ReadonlyMap<string, StoredStream>,
  existingGroups: ExistingGroups,
  now: string,
): DecidedBatch {
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
      stream = workingStream(stored.get(id), id);
      working.set(id, stream);
    }
    if (stream.refused !== undefined) {
      outcome.rejections.push(rejectionOf(row, stream.refused));
      continue;
    }
    const decided = LOCATION_DECIDER.decide(
      { type: 'ReplaceLocation', locationId: id, body: row.body, now, existingGroups },
      stream.state,
    );
    if (!decided.ok) {
      outcome.rejections.push(rejectionOf(row, decided.error));
    } else if (decided.value.length === 0) {
      outcome.unchanged += 1;
    } else {
      if (stream.state === undefined) outcome.created += 1;
      else outcome.updated += 1;
      stream.events.push(...decided.value);
      stream.state = decided.value.reduce((state, event) => LOCATION_DECIDER.evolve(state, event), stream.state);
      const { locationGroupIds, addressGroupIds } = LOCATION_DECIDER.references(stream.state);
      for (const groupId of [...locationGroupIds, ...addressGroupIds]) usedGroups.add(groupId);
    }
  }
  return { appends: appendsOf(working), outcome, usedGroups };
}

/** The canonical (lower-case) ids of the rows that have a valid one. */
export function importRowIdsOf(rows: readonly ImportRow[]): ReadonlySet<string> {
  const ids = new Set<string>();
  for (const row of rows) {
    const id = canonicalId(row.id);
    if (id !== undefined) ids.add(id);
  }
  return ids;
}

function workingStream(found: StoredStream | undefined, id: string): WorkingStream {
  const fromVersion = found?.version ?? 0;
  try {
    return { fromVersion, state: LOCATION_DECIDER.stateOf(found, id), events: [] };
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    return { fromVersion, state: undefined, events: [], refused: error };
  }
}

function appendsOf(working: ReadonlyMap<string, WorkingStream>): StreamAppend[] {
  const appends: StreamAppend[] = [];
  for (const [streamId, stream] of working) {
    if (stream.events.length === 0 || stream.state === undefined) continue;
    appends.push({
      streamId,
      streamType: LOCATION_DECIDER.streamType,
      fromVersion: stream.fromVersion,
      events: stream.events,
      index: LOCATION_DECIDER.index(stream.state),
    });
  }
  return appends;
}

function canonicalId(id: string | undefined): string | undefined {
  return id !== undefined && isUuid(id) ? id.toLowerCase() : undefined;
}

function idIssues(id: string | undefined): ValidationIssue[] {
  if (id === undefined) {
    return [{ field: 'id', rule: 'required', message: 'id is required: an import row names the location it writes' }];
  }
  return isUuid(id) ? [] : [{ field: 'id', rule: 'uuid', message: 'id must be a UUID' }];
}

function rejectionOf(row: ImportRow, error: DomainError): ImportRejection {
  const rejection: ImportRejection = { line: row.line, code: error.code, message: error.message };
  if (row.id !== undefined) rejection.id = row.id;
  if (error.details !== undefined) rejection.details = error.details;
  return rejection;
}
