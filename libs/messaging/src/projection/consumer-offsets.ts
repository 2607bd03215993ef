import type { QueryRunner } from 'typeorm';
import type { PartitionPosition } from '../event-bus';
import type { ProjectionTransaction } from './projection';

/**
 * Creates the table where projections keep, per consumer group and partition, the offset of the next message to
 * apply. It is written in the same transaction as the read model, so it is the true position of the read model; the
 * offsets committed to Kafka only save re-reading.
 */
export async function createConsumerOffsetsTable(queryRunner: QueryRunner): Promise<void> {
  await queryRunner.query(`
    CREATE TABLE consumer_offsets (
      group_id text NOT NULL,
      topic text NOT NULL,
      partition integer NOT NULL,
      next_offset bigint NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      CONSTRAINT consumer_offsets_pkey PRIMARY KEY (group_id, topic, partition)
    )
  `);
}

export async function dropConsumerOffsetsTable(queryRunner: QueryRunner): Promise<void> {
  await queryRunner.query(`DROP TABLE consumer_offsets`);
}

/** The stored next offset of one partition, locked until commit; 0 when nothing was applied yet. */
export async function lockNextOffset(
  transaction: ProjectionTransaction,
  groupId: string,
  topic: string,
  partition: number,
): Promise<bigint> {
  const { rows } = await transaction.query<{ next_offset: string }>(
    `SELECT next_offset FROM consumer_offsets WHERE group_id = $1 AND topic = $2 AND partition = $3 FOR UPDATE`,
    [groupId, topic, partition],
  );
  return rows[0] === undefined ? 0n : BigInt(rows[0].next_offset);
}

export async function storeNextOffset(
  transaction: ProjectionTransaction,
  groupId: string,
  topic: string,
  partition: number,
  nextOffset: bigint,
): Promise<void> {
  await transaction.query(
    `INSERT INTO consumer_offsets (group_id, topic, partition, next_offset) VALUES ($1, $2, $3, $4)
     ON CONFLICT (group_id, topic, partition)
     DO UPDATE SET next_offset = EXCLUDED.next_offset, updated_at = clock_timestamp()`,
    [groupId, topic, partition, nextOffset.toString()],
  );
}

/** Stores a partition's start offset unless one is stored already (by another member, or an earlier start). */
export async function storeStartOffset(
  transaction: ProjectionTransaction,
  groupId: string,
  { topic, partition, offset }: PartitionPosition,
): Promise<void> {
  await transaction.query(
    `INSERT INTO consumer_offsets (group_id, topic, partition, next_offset) VALUES ($1, $2, $3, $4)
     ON CONFLICT (group_id, topic, partition) DO NOTHING`,
    [groupId, topic, partition, offset],
  );
}

/** Every stored position of a consumer group. */
export async function storedPositions(db: ProjectionTransaction, groupId: string): Promise<PartitionPosition[]> {
  const { rows } = await db.query<{ topic: string; partition: number; next_offset: string }>(
    `SELECT topic, partition, next_offset FROM consumer_offsets WHERE group_id = $1 ORDER BY topic, partition`,
    [groupId],
  );
  return rows.map((row) => ({ topic: row.topic, partition: row.partition, offset: row.next_offset }));
}
