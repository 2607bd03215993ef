import { Readable } from 'node:stream';
import type { Pool, PoolClient } from 'pg';
import type { ExportFormat } from '@lx/contracts';
import { checkOut } from '@lx/platform';

/** A snapshot stream and what the export needs to know before the first line. */
export interface LocationSnapshot {
  /** When the snapshot was taken (the transaction's start), UTC. */
  takenAt: Date;
  /** Locations the stream will hold. */
  totalCount: number;
  /** What the stream holds per location. */
  format: ExportFormat;
  /** Ordered by id: NDJSON, one Location per line (json), or one CRLF-terminated CSV record per location (csv). */
  stream: Readable;
}

const CURSOR = 'location_snapshot';

/** Which locations a snapshot holds; all when empty. */
export interface SnapshotFilter {
  /** Only locations whose updatedAt is after this UTC date-time. */
  modifiedSince?: string;
  /** Only the locations of this location group. */
  locationGroupId?: string;
}

/** The WHERE clause of a filter and its parameters, shared by the count and the cursor so they always agree. */
export function snapshotWhere(filter: SnapshotFilter): { where: string; values: string[] } {
  const conditions: string[] = [];
  const values: string[] = [];
  if (filter.modifiedSince !== undefined) {
    values.push(filter.modifiedSince);
    conditions.push(`updated_at > $${values.length}`);
  }
  if (filter.locationGroupId !== undefined) {
    values.push(filter.locationGroupId);
    conditions.push(`location_group_id = $${values.length}`);
  }
  return { where: conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`, values };
}

/** What a snapshot streams per location, by format, its line break included: stored text, nothing parsed. */
const ROW_TEXT: Readonly<Record<ExportFormat, string>> = { json: `body::text || E'\\n'`, csv: 'csv' };

/**
 * Opens a consistent snapshot of the read model and streams it, as stored (JSON bodies or CSV records), with constant
 * memory.
 *
 * Raw node-postgres on a dedicated connection rather than TypeORM: the rows are read through a server-side cursor
 * (DECLARE … FETCH n) inside a REPEATABLE READ, READ ONLY transaction, so the count and every fetched row come from
 * one snapshot however long the stream takes, and at most `fetchRows` rows are in memory. The next FETCH runs only
 * when the consumer of the stream asks for more (Readable back-pressure). The connection is released when the stream
 * ends, fails or is destroyed (the client went away).
 */
export async function openLocationSnapshot(
  pool: Pool,
  filter: SnapshotFilter,
  format: ExportFormat,
  fetchRows: number,
): Promise<LocationSnapshot> {
  const { client, release } = await checkOut(pool);
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const { where, values } = snapshotWhere(filter);
    const { rows } = await client.query<{ total: string; taken_at: Date }>(
      `SELECT count(*) AS total, now() AS taken_at FROM locations ${where}`,
      values,
    );
    await client.query(
      `DECLARE ${CURSOR} NO SCROLL CURSOR FOR SELECT ${ROW_TEXT[format]} AS text FROM locations ${where} ORDER BY id`,
      values,
    );
    return {
      takenAt: rows[0]!.taken_at,
      totalCount: Number(rows[0]!.total),
      format,
      stream: new SnapshotStream(client, release, fetchRows),
    };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    release(error instanceof Error ? error : undefined);
    throw error;
  }
}

class SnapshotStream extends Readable {
  private released = false;

  constructor(
    private readonly client: PoolClient,
    private readonly release: (error?: Error) => void,
    private readonly fetchRows: number,
  ) {
    super({ highWaterMark: 1 << 20 });
  }

  override _read(): void {
    this.client.query<{ text: string }>(`FETCH ${this.fetchRows} FROM ${CURSOR}`).then(
      async ({ rows }) => {
        if (rows.length === 0) {
          await this.finish();
          this.push(null);
          return;
        }
        this.push(rows.map((row) => row.text).join(''));
      },
      (error: unknown) => this.destroy(error instanceof Error ? error : new Error(String(error))),
    );
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (this.released) {
      callback(error);
      return;
    }
    this.released = true;
    this.client.query('ROLLBACK').then(
      () => {
        this.release();
        callback(error);
      },
      (rollbackError: unknown) => {
        this.release(rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError)));
        callback(error);
      },
    );
  }

  private async finish(): Promise<void> {
    if (this.released) return;
    this.released = true;
    try {
      await this.client.query('COMMIT');
      this.release();
    } catch (error) {
      this.release(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
