import { Readable } from 'node:stream';
import { escapeLiteral, type Pool, type PoolClient } from 'pg';
import type { ExportFormat } from '@lx/contracts';
import { checkOut } from '@lx/platform';
import { GROUP_ROW_COLUMNS, groupListItem, type GroupRow, groupSelection } from '../../read-model/group-rows';
import { LIVE_TABLES } from '../../read-model/read-model-tables';
import { BinaryCopyOut } from './binary-copy-out';

/** What a snapshot streams besides the selected locations. */
export interface SnapshotContent {
  /** json only: the snapshot's location groups, then its address groups, follow the locations. */
  groups?: boolean;
  /** json only: every line ends with the row's version (see VERSIONED_JSON_ROW_TEXT). */
  versions?: boolean;
}

/** A snapshot stream and what the export needs to know before the first line. */
export interface LocationSnapshot {
  /** When the snapshot was taken (the transaction's start), UTC. */
  takenAt: Date;
  /** Locations the stream will hold. */
  totalCount: number;
  /** With groups: how many location group lines, then address group lines, follow the locations. */
  groupCounts?: { locationGroups: number; addressGroups: number };
  /** What the stream holds per location. */
  format: ExportFormat;
  /**
   * Ordered by id: NDJSON, one Location per line (json), or one CRLF-terminated CSV record per location (csv). With
   * groups (json only), then one LocationGroupListItem per line, then one AddressGroupListItem per line, each by id.
   */
  stream: Readable;
}

/** Which locations a snapshot holds; all when empty. */
export interface SnapshotFilter {
  /** Only locations (and groups) whose last change is after this UTC date-time. */
  modifiedSince?: string;
  /** Only the locations of this location group (groups are not selected by it). */
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

/**
 * The WHERE clause with its parameters written in as literals, for the COPY (which takes no parameters): the same
 * text as the count's, so the two select the same rows. The values are a UUID and a date-time the query parser has
 * checked, quoted with node-postgres' escapeLiteral besides.
 */
export function inlineParameters(where: string, values: readonly string[]): string {
  return where.replace(/\$(\d+)/g, (_, index: string) => escapeLiteral(values[Number(index) - 1]!));
}

/** What a snapshot streams per location, by format, its line break included: stored text, nothing parsed. */
const ROW_TEXT: Readonly<Record<ExportFormat, string>> = { json: `body::text || E'\\n'`, csv: 'csv' };

/**
 * A json line with the row's version as the last key, composed in SQL from the stored text and the version column (no
 * JSON is parsed per row): the body with `,"version":n` before its closing brace. The stored text is a serialised
 * Location object as the projection wrote it (JSON.stringify: no whitespace), so it ends with that brace and holds
 * other keys before it; what precedes the version is byte for byte what GET /locations/{id} serves.
 */
const VERSIONED_JSON_ROW_TEXT = `left(body::text, -1) || ',"version":' || version || E'}\\n'`;

/**
 * One part of a snapshot: the locations, a COPY of their stored text; then, with groups, a cursor per group table and
 * how its rows become the stream's text (few rows, built from columns).
 */
type SnapshotPart = { copy: string } | { cursor: string; text(row: Record<string, unknown>): string };

/** The group parts of a snapshot, in stream order: location groups, then address groups. */
const GROUP_PARTS = [
  { cursor: 'location_group_snapshot', table: LIVE_TABLES.locationGroups },
  { cursor: 'address_group_snapshot', table: LIVE_TABLES.addressGroups },
] as const;

const groupLine = (row: Record<string, unknown>) => `${JSON.stringify(groupListItem(row as unknown as GroupRow))}\n`;

/** A group line with its version as the last key, after deletedAt on a tombstone. */
const versionedGroupLine = (row: Record<string, unknown>) =>
  `${JSON.stringify({ ...groupListItem(row as unknown as GroupRow), version: row['version'] as number })}\n`;

/**
 * Opens a consistent snapshot of the read model and streams it, as stored (JSON bodies or CSV records), with constant
 * memory; with `groups`, the groups selected by modifiedSince follow the locations (see SnapshotFilter); with
 * `versions`, every line ends with its row's version, read in the same snapshot as the row.
 *
 * Raw node-postgres on a dedicated connection rather than TypeORM, inside a REPEATABLE READ, READ ONLY transaction, so
 * the counts and every row, groups included, come from one snapshot however long the stream takes. The locations are
 * a COPY of their stored text (BinaryCopyOut: their bytes as the server sends them, no per-row string or round trip;
 * a cursor's FETCH of the same rows took about 2.5 times as long), read from the socket only while the consumer of
 * the stream asks for more (Readable back-pressure: the socket is paused, the server waits on TCP). The groups follow
 * through server-side cursors (DECLARE … FETCH n, at most `fetchRows` rows in memory; they are built from columns).
 * The connection is released when the stream ends or fails, or destroyed with it when the stream is destroyed (the
 * client went away) during the COPY; after it, the transaction is rolled back and the connection kept.
 */
export async function openLocationSnapshot(
  pool: Pool,
  filter: SnapshotFilter,
  format: ExportFormat,
  fetchRows: number,
  content: SnapshotContent = {},
): Promise<LocationSnapshot> {
  const groups = content.groups === true;
  const versions = content.versions === true && format === 'json';
  const { client, release } = await checkOut(pool);
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const { where, values } = snapshotWhere(filter);
    const { rows } = await client.query<{ total: string; taken_at: Date }>(
      `SELECT count(*) AS total, now() AS taken_at FROM locations ${where}`,
      values,
    );
    const parts: SnapshotPart[] = [
      {
        copy: `COPY (SELECT ${versions ? VERSIONED_JSON_ROW_TEXT : ROW_TEXT[format]} FROM locations
          ${inlineParameters(where, values)} ORDER BY id) TO STDOUT (FORMAT binary)`,
      },
    ];
    const groupCounts: number[] = [];
    if (groups) {
      for (const { cursor, table } of GROUP_PARTS) {
        const groupValues: unknown[] = [];
        const groupWhere = `WHERE ${groupSelection(filter.modifiedSince, groupValues)}`;
        const counted = await client.query<{ total: string }>(
          `SELECT count(*) AS total FROM ${table} ${groupWhere}`,
          groupValues,
        );
        groupCounts.push(Number(counted.rows[0]!.total));
        await client.query(
          `DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT ${GROUP_ROW_COLUMNS}${versions ? ', version' : ''}
             FROM ${table} ${groupWhere} ORDER BY id`,
          groupValues,
        );
        parts.push({ cursor, text: versions ? versionedGroupLine : groupLine });
      }
    }
    return {
      takenAt: rows[0]!.taken_at,
      totalCount: Number(rows[0]!.total),
      ...(groups ? { groupCounts: { locationGroups: groupCounts[0]!, addressGroups: groupCounts[1]! } } : {}),
      format,
      stream: new SnapshotStream(client, release, fetchRows, parts),
    };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    release(error instanceof Error ? error : undefined);
    throw error;
  }
}

class SnapshotStream extends Readable {
  private released = false;
  /** The part being read; the parts are read one after the other. */
  private part = 0;
  /** The COPY being read, until it ends. */
  private copy?: BinaryCopyOut;
  /** A call of `next` is running (for as long as a COPY does): it pushes when it returns. */
  private reading = false;

  constructor(
    private readonly client: PoolClient,
    private readonly release: (error?: Error) => void,
    private readonly fetchRows: number,
    private readonly parts: readonly SnapshotPart[],
  ) {
    super({ highWaterMark: 1 << 20 });
  }

  override _read(): void {
    // A COPY's rows come as its socket is read: read on.
    this.copy?.resume();
    if (this.reading) return;
    this.reading = true;
    this.next().then(
      async (text) => {
        this.reading = false;
        if (text === undefined) {
          await this.finish();
          this.push(null);
          return;
        }
        this.push(text);
      },
      (error: unknown) => this.destroy(error instanceof Error ? error : new Error(String(error))),
    );
  }

  /**
   * The text of the next rows, moving on to the next part when one is exhausted; undefined after the last. A COPY part
   * pushes its rows itself while it runs.
   */
  private async next(): Promise<string | undefined> {
    for (; this.part < this.parts.length; this.part += 1) {
      const part = this.parts[this.part]!;
      if ('copy' in part) {
        const copy = new BinaryCopyOut(part.copy, this);
        this.copy = copy;
        try {
          this.client.query(copy);
          await copy.done;
        } finally {
          this.copy = undefined;
        }
        continue;
      }
      const { rows } = await this.client.query<Record<string, unknown>>(`FETCH ${this.fetchRows} FROM ${part.cursor}`);
      if (rows.length > 0) return rows.map((row) => part.text(row)).join('');
    }
    return undefined;
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (this.released) {
      callback(error);
      return;
    }
    this.released = true;
    if (this.copy !== undefined) {
      // The server streams a COPY to its end before it reads a ROLLBACK: the connection goes instead. Handed back
      // with an error first, so the pool discards it and its end is not taken for a lost connection.
      this.release(error ?? new Error('the snapshot was destroyed during its COPY'));
      this.copy.abort();
      callback(error);
      return;
    }
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
