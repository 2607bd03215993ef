import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { ExportFormat, ExportStatus } from '@lx/contracts';
import type { ExportFile, ExportRequest, ExportSelection, Listed, Page } from '@lx/domain';
import { ReadPool, traceParentOf } from '@lx/platform';

interface ExportRequestRow {
  id: string;
  client_id: string;
  format: ExportFormat;
  modified_since: Date | null;
  location_group_id: string | null;
  include_versions: boolean;
  spreadsheet_safe: boolean;
  status: ExportStatus;
  attempts: number;
  object_key: string | null;
  export_url: string | null;
  download_expires_at: Date | null;
  export_timestamp: Date | null;
  total_count: number | null;
  error_code: string | null;
  error_message: string | null;
  created_at: Date;
  rows_written: string;
  rows_total: string | null;
  sha256: string | null;
  size_bytes: string | null;
  file_expires_at: Date | null;
  file_deleted_at: Date | null;
  request_hash: string | null;
  trace_parent: string | null;
}

/** A new request as it is stored. */
export interface NewExportRequest extends ExportSelection {
  id: string;
  clientId: string;
  format: ExportFormat;
  includeVersions: boolean;
  spreadsheetSafe: boolean;
  createdAt: Date;
  idempotencyKey?: string;
  requestHash: string;
}

/** A finished request whose objects retention deletes: its file, and those of attempts 1 to `attempts`. */
export interface ExpiredExport {
  id: string;
  clientId: string;
  format: ExportFormat;
  attempts: number;
  /** A COMPLETED request's file. */
  objectKey?: string;
}

/** A request claimed for generation: the request and the attempt this replica now runs. */
export interface ClaimedExport {
  request: ExportRequest;
  attempt: number;
  leaseOwner: string;
  /** The W3C trace context of the request that asked for it (POST /exports), when it was traced. */
  traceParent?: string;
}

const iso = (value: Date) => value.toISOString();

/** TypeORM answers an UPDATE … RETURNING on Postgres with `[rows, affected]`, and a SELECT with the rows. */
function updatedRows<T>(result: unknown): T[] {
  const [first] = result as unknown[];
  return (Array.isArray(first) ? first : result) as T[];
}

function requestOf(row: ExportRequestRow): ExportRequest {
  const request: ExportRequest = {
    id: row.id,
    clientId: row.client_id,
    format: row.format,
    createdAt: iso(row.created_at),
    status: row.status,
    attempts: row.attempts,
    progress: {
      written: Number(row.rows_written),
      ...(row.rows_total === null ? {} : { total: Number(row.rows_total) }),
    },
  };
  if (row.modified_since !== null) request.modifiedSince = iso(row.modified_since);
  if (row.location_group_id !== null) request.locationGroupId = row.location_group_id;
  if (row.include_versions) request.includeVersions = true;
  if (row.spreadsheet_safe) request.spreadsheetSafe = true;
  if (row.status === 'COMPLETED') request.file = fileOf(row);
  if (row.status === 'FAILED') {
    request.error = { code: 'EXPORT_GENERATION_FAILED', message: row.error_message ?? 'the export failed' };
  }
  return request;
}

function fileOf(row: ExportRequestRow): ExportFile {
  const file: ExportFile = {
    exportUrl: row.export_url!,
    downloadExpiresAt: iso(row.download_expires_at!),
    exportTimestamp: iso(row.export_timestamp!),
    totalCount: row.total_count!,
    sha256: row.sha256!,
    sizeBytes: Number(row.size_bytes!),
    objectKey: row.object_key!,
    fileExpiresAt: iso(row.file_expires_at!),
  };
  if (row.file_deleted_at !== null) file.fileDeletedAt = iso(row.file_deleted_at);
  return file;
}

/**
 * export_requests: the requests and the jobs they are. Every statement that moves a job checks the lease it holds
 * (`lease_owner`), so a replica whose lease lapsed and was taken over can no longer change the request.
 */
@Injectable()
export class ExportRequestRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly reads: ReadPool,
  ) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** The client's request, or undefined: another client's request does not exist for it. */
  async find(clientId: string, id: string, manager: EntityManager = this.dataSource.manager) {
    const rows: ExportRequestRow[] = await manager.query(
      'SELECT * FROM export_requests WHERE id = $1 AND client_id = $2',
      [id, clientId],
    );
    return rows[0] === undefined ? undefined : requestOf(rows[0]);
  }

  /** The client's exports, newest first, and how many there are: an RSP's read, on the ReadPool. */
  async list(clientId: string, page: Page, status?: ExportStatus): Promise<{ items: ExportRequest[] } & Listed> {
    const { rows, ...listed } = await this.reads.page<ExportRequestRow>({
      columns: '*',
      table: 'export_requests',
      conditions: status === undefined ? ['client_id = $1'] : ['client_id = $1', 'status = $2'],
      values: status === undefined ? [clientId] : [clientId, status],
      page,
      order: 'created_at DESC, id DESC',
    });
    return { items: rows.map(requestOf), ...listed };
  }

  /** The request made with this Idempotency-Key since `since`, with the hash of its body. */
  async findByIdempotencyKey(
    clientId: string,
    key: string,
    since: Date,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{ request: ExportRequest; requestHash: string } | undefined> {
    const rows: ExportRequestRow[] = await manager.query(
      'SELECT * FROM export_requests WHERE client_id = $1 AND idempotency_key = $2 AND created_at > $3',
      [clientId, key, since],
    );
    const row = rows[0];
    return row === undefined ? undefined : { request: requestOf(row), requestHash: row.request_hash ?? '' };
  }

  /** Frees an Idempotency-Key whose 24 hours are over, so it can name a new request. */
  async releaseIdempotencyKey(manager: EntityManager, clientId: string, key: string, before: Date): Promise<void> {
    await manager.query(
      `UPDATE export_requests SET idempotency_key = NULL
        WHERE client_id = $1 AND idempotency_key = $2 AND created_at <= $3`,
      [clientId, key, before],
    );
  }

  /** Serializes the creations of one client across replicas until the transaction ends (quota and cap checks). */
  async lockClient(manager: EntityManager, clientId: string): Promise<void> {
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`export-client:${clientId}`]);
  }

  /** Counts one more request in the client's window starting at `windowStart`; the count including it. */
  async countRequest(manager: EntityManager, clientId: string, windowStart: Date): Promise<number> {
    const rows: { requests: number }[] = await manager.query(
      `INSERT INTO export_rate_windows (client_id, window_start, requests) VALUES ($1, $2, 1)
       ON CONFLICT (client_id, window_start) DO UPDATE SET requests = export_rate_windows.requests + 1
       RETURNING requests`,
      [clientId, windowStart],
    );
    return rows[0]!.requests;
  }

  async countUnfinished(manager: EntityManager, clientId: string): Promise<number> {
    const rows: { n: number }[] = await manager.query(
      `SELECT count(*)::int AS n FROM export_requests WHERE client_id = $1 AND status = 'PENDING'`,
      [clientId],
    );
    return rows[0]?.n ?? 0;
  }

  async insert(manager: EntityManager, request: NewExportRequest): Promise<void> {
    await manager.query(
      `INSERT INTO export_requests (id, client_id, format, modified_since, location_group_id, include_versions,
         spreadsheet_safe, status, attempts, idempotency_key, request_hash, next_attempt_at, created_at, updated_at,
         trace_parent)
       VALUES ($1, $2, $3, $4, $5, $9, $10, 'PENDING', 0, $6, $7, $8, $8, $8, $11)`,
      [
        request.id,
        request.clientId,
        request.format,
        request.modifiedSince ?? null,
        request.locationGroupId ?? null,
        request.idempotencyKey ?? null,
        request.requestHash,
        request.createdAt,
        request.includeVersions,
        request.spreadsheetSafe,
        traceParentOf() ?? null,
      ],
    );
  }

  /**
   * Claims the oldest PENDING request that is due and not leased by a live replica, for `leaseSeconds`, and counts
   * the attempt. SKIP LOCKED: replicas claiming at the same time take different requests.
   */
  async claim(leaseOwner: string, leaseSeconds: number): Promise<ClaimedExport | undefined> {
    const rows = updatedRows<ExportRequestRow>(
      await this.dataSource.query(
        `UPDATE export_requests SET attempts = attempts + 1, lease_owner = $1,
              lease_expires_at = clock_timestamp() + make_interval(secs => $2), updated_at = clock_timestamp()
        WHERE id = (SELECT id FROM export_requests
                     WHERE status = 'PENDING' AND next_attempt_at <= clock_timestamp()
                       AND (lease_expires_at IS NULL OR lease_expires_at < clock_timestamp())
                     ORDER BY next_attempt_at, created_at
                     LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING *`,
        [leaseOwner, leaseSeconds],
      ),
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    const claim: ClaimedExport = { request: requestOf(row), attempt: row.attempts, leaseOwner };
    return row.trace_parent === null ? claim : { ...claim, traceParent: row.trace_parent };
  }

  /** Extends the lease and records progress; false when the lease was lost (the job must stop). */
  async renewLease(claim: ClaimedExport, leaseSeconds: number, written: number, total?: number): Promise<boolean> {
    const rows = updatedRows(
      await this.dataSource.query(
        `UPDATE export_requests SET lease_expires_at = clock_timestamp() + make_interval(secs => $3),
              rows_written = $4, rows_total = coalesce($5, rows_total), updated_at = clock_timestamp()
        WHERE id = $1 AND lease_owner = $2 AND status = 'PENDING'
        RETURNING id`,
        [claim.request.id, claim.leaseOwner, leaseSeconds, written, total ?? null],
      ),
    );
    return rows.length === 1;
  }

  /** Gives a failed attempt back for a retry at `nextAttemptAt`; false when the lease was lost meanwhile. */
  async release(claim: ClaimedExport, nextAttemptAt: Date, reason: string): Promise<boolean> {
    const rows = updatedRows(
      await this.dataSource.query(
        `UPDATE export_requests SET lease_owner = NULL, lease_expires_at = NULL, next_attempt_at = $3,
              rows_written = 0, error_message = $4, updated_at = clock_timestamp()
        WHERE id = $1 AND lease_owner = $2 AND status = 'PENDING'
        RETURNING id`,
        [claim.request.id, claim.leaseOwner, nextAttemptAt, reason],
      ),
    );
    return rows.length === 1;
  }

  /** Hands an interrupted attempt back uncounted and due at once (the replica is shutting down). */
  async giveBack(claim: ClaimedExport): Promise<void> {
    await this.dataSource.query(
      `UPDATE export_requests SET attempts = attempts - 1, lease_owner = NULL, lease_expires_at = NULL,
              next_attempt_at = clock_timestamp(), rows_written = 0, updated_at = clock_timestamp()
        WHERE id = $1 AND lease_owner = $2 AND status = 'PENDING'`,
      [claim.request.id, claim.leaseOwner],
    );
  }

  /** Marks the claimed request COMPLETED with its file; false when the lease was lost meanwhile. */
  async complete(manager: EntityManager, claim: ClaimedExport, file: ExportFile): Promise<boolean> {
    const rows = updatedRows(
      await manager.query(
        `UPDATE export_requests SET status = 'COMPLETED', lease_owner = NULL, lease_expires_at = NULL,
              object_key = $3, export_url = $4, download_expires_at = $5, export_timestamp = $6, total_count = $7::int,
              sha256 = $8, size_bytes = $9, file_expires_at = $10, rows_written = $7::int, rows_total = $7::int,
              error_message = NULL, updated_at = clock_timestamp()
        WHERE id = $1 AND lease_owner = $2 AND status = 'PENDING'
        RETURNING id`,
        [
          claim.request.id,
          claim.leaseOwner,
          file.objectKey,
          file.exportUrl,
          file.downloadExpiresAt,
          file.exportTimestamp,
          file.totalCount,
          file.sha256,
          file.sizeBytes,
          file.fileExpiresAt,
        ],
      ),
    );
    return rows.length === 1;
  }

  /** Marks the claimed request FAILED; false when the lease was lost meanwhile. */
  async fail(manager: EntityManager, claim: ClaimedExport, message: string): Promise<boolean> {
    const rows = updatedRows(
      await manager.query(
        `UPDATE export_requests SET status = 'FAILED', error_code = 'EXPORT_GENERATION_FAILED', error_message = $3,
              lease_owner = NULL, lease_expires_at = NULL, updated_at = clock_timestamp()
        WHERE id = $1 AND lease_owner = $2 AND status = 'PENDING'
        RETURNING id`,
        [claim.request.id, claim.leaseOwner, message],
      ),
    );
    return rows.length === 1;
  }

  /** A new download link for a COMPLETED export. */
  async updateLink(id: string, exportUrl: string, downloadExpiresAt: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE export_requests SET export_url = $2, download_expires_at = $3, updated_at = clock_timestamp()
        WHERE id = $1 AND status = 'COMPLETED'`,
      [id, exportUrl, downloadExpiresAt],
    );
  }

  /**
   * Finished requests whose objects are due for deletion: COMPLETED ones whose file's retention is over, and FAILED
   * ones that failed longer than `retentionSeconds` ago (their attempts' objects are normally removed when they fail;
   * this catches a replica that died first). With the attempts made, whose objects retention removes.
   */
  async expiredFiles(now: Date, retentionSeconds: number, limit: number): Promise<ExpiredExport[]> {
    const columns = 'id, client_id, format, attempts, object_key';
    const rows: Pick<ExportRequestRow, 'id' | 'client_id' | 'format' | 'attempts' | 'object_key'>[] =
      await this.dataSource.query(
        `(SELECT ${columns} FROM export_requests
           WHERE status = 'COMPLETED' AND file_deleted_at IS NULL AND file_expires_at <= $1
           ORDER BY file_expires_at LIMIT $3)
         UNION ALL
         (SELECT ${columns} FROM export_requests
           WHERE status = 'FAILED' AND file_deleted_at IS NULL
             AND updated_at <= $1::timestamptz - make_interval(secs => $2)
           ORDER BY updated_at LIMIT $3)`,
        [now, retentionSeconds, limit],
      );
    return rows.map((row) => ({
      id: row.id,
      clientId: row.client_id,
      format: row.format,
      attempts: row.attempts,
      ...(row.object_key === null ? {} : { objectKey: row.object_key }),
    }));
  }

  /** Records that a request's objects are deleted (a COMPLETED one's file, then, refuses new links). */
  async markFileDeleted(id: string, now: Date): Promise<void> {
    await this.dataSource.query('UPDATE export_requests SET file_deleted_at = $2 WHERE id = $1', [id, now]);
  }

  /** Drops rate-limit windows that ended before `before`. */
  async purgeRateWindows(before: Date): Promise<void> {
    await this.dataSource.query('DELETE FROM export_rate_windows WHERE window_start < $1', [before]);
  }

  /** PENDING exports and the age of the oldest, for the metrics. */
  async pendingSummary(now: Date): Promise<{ pending: number; oldestAgeSeconds: number }> {
    const rows: { pending: number; oldest: Date | null }[] = await this.dataSource.query(
      `SELECT count(*)::int AS pending, min(created_at) AS oldest FROM export_requests WHERE status = 'PENDING'`,
    );
    const oldest = rows[0]?.oldest;
    return {
      pending: rows[0]?.pending ?? 0,
      oldestAgeSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0,
    };
  }
}
