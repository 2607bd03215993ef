import { Injectable } from '@nestjs/common';
import type { QueryRunner } from 'typeorm';
import { TRACEPARENT, traceParentOf } from '@lx/platform';
import { type RelayBatch, type RelayMessage, RelaySource } from './relay-source';

/** A message to publish after the surrounding transaction commits. */
export interface OutboxMessage {
  topic: string;
  /** The aggregate id: Kafka keeps messages of one key in order. */
  key: string;
  /** The serialized message, usually an event envelope as JSON. */
  value: string;
  headers?: Record<string, string>;
}

/** What runs the outbox's statements inside the caller's transaction: a TypeORM EntityManager or a pg client. */
export interface OutboxExecutor {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/** Creates the outbox table in the current schema; call it from the owning service's migration. */
export async function createOutboxTable(queryRunner: QueryRunner): Promise<void> {
  await queryRunner.query(`
    CREATE TABLE outbox (
      position bigserial NOT NULL,
      topic text NOT NULL,
      message_key text NOT NULL,
      value text NOT NULL,
      headers jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      published_at timestamptz,
      CONSTRAINT outbox_pkey PRIMARY KEY (position)
    )
  `);
  await queryRunner.query(`CREATE INDEX outbox_unpublished_idx ON outbox (position) WHERE published_at IS NULL`);
}

export async function dropOutboxTable(queryRunner: QueryRunner): Promise<void> {
  await queryRunner.query(`DROP TABLE outbox`);
}

interface OutboxRow {
  position: string;
  topic: string;
  message_key: string;
  value: string;
  headers: Record<string, string>;
  created_at: Date;
}

/**
 * Writes messages into the outbox inside the caller's transaction, so they exist exactly when the
 * state change that produced them commits; each with the trace context active there (a `traceparent` header), when
 * tracing is on. OutboxRelay publishes them afterwards: the outbox is its source, read in
 * position order, each row marked once published.
 */
@Injectable()
export class Outbox extends RelaySource {
  async append(executor: OutboxExecutor, messages: readonly OutboxMessage[]): Promise<void> {
    if (messages.length === 0) return;
    // The trace of the work that appends (a request, an export), carried with each message to its consumers.
    const traceParent = traceParentOf();
    const trace = traceParent === undefined ? {} : { [TRACEPARENT]: traceParent };
    // unnest: one statement and four parameters whatever the batch size (Postgres caps a statement
    // at 65,535 bind parameters).
    await executor.query(
      `INSERT INTO outbox (topic, message_key, value, headers)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[])`,
      [
        messages.map((message) => message.topic),
        messages.map((message) => message.key),
        messages.map((message) => message.value),
        messages.map((message) => JSON.stringify({ ...trace, ...message.headers })),
      ],
    );
    this.signals.emit('appended');
  }

  leaderLock(schema: string): string {
    return `outbox-relay:${schema}`;
  }

  async resume(): Promise<void> {
    // The unpublished rows are the progress: nothing to load.
  }

  async read(runner: QueryRunner, limit: number, after?: RelayBatch): Promise<RelayBatch> {
    // Rows of the batch still in flight are skipped; a row that committed late with a lower position is not.
    const rows = (await runner.query(
      `SELECT position, topic, message_key, value, headers, created_at
         FROM outbox WHERE published_at IS NULL AND position <> ALL($2::bigint[]) ORDER BY position LIMIT $1`,
      [limit, after?.end ?? []],
    )) as OutboxRow[];
    const messages: RelayMessage[] = rows.map((row) => ({
      topic: row.topic,
      key: row.message_key,
      value: row.value,
      headers: row.headers,
      createdAt: row.created_at,
    }));
    return { messages, end: rows.map((row) => row.position) };
  }

  /**
   * Deletes up to `limit` rows published before `before`, oldest first; an unpublished row is never deleted. Returns how
   * many went. The relay needs none of them again: the unpublished rows are its whole progress.
   */
  async purgePublished(executor: OutboxExecutor, before: Date, limit: number): Promise<number> {
    const rows = (await executor.query(
      `WITH gone AS (
         DELETE FROM outbox WHERE position IN (
           SELECT position FROM outbox WHERE published_at < $1 ORDER BY position LIMIT $2)
         RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [before, limit],
    )) as { n: number }[];
    return rows[0]?.n ?? 0;
  }

  async confirm(runner: QueryRunner, batch: RelayBatch): Promise<void> {
    await runner.query(`UPDATE outbox SET published_at = clock_timestamp() WHERE position = ANY($1::bigint[])`, [
      batch.end,
    ]);
  }
}
