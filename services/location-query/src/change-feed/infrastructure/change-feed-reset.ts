import type { Pool } from 'pg';
import { checkOut } from '@lx/platform';

/**
 * Empties the change feed and gives it a new epoch, and forgets where its consumer group stood, so that the next start
 * of location-query fills it again from the start of the topics. Every cursor handed out before is then refused with
 * 410 (another epoch) instead of being read against positions that now mean something else. For when the feed cannot
 * be trusted (a restore into another PostgreSQL cluster, whose transaction ids may be lower than the stored ones; a
 * bug fixed in what it stores). location-query must be stopped meanwhile: a running consumer would go on from where it
 * is and never read the topics again. One transaction: a failure changes nothing.
 */
export async function resetChangeFeed(pool: Pool, groupId: string): Promise<{ epoch: string }> {
  const { client, release } = await checkOut(pool);
  try {
    await client.query('BEGIN');
    await client.query('TRUNCATE location_changes');
    const { rows } = await client.query<{ epoch: string }>(
      `UPDATE change_feed_state
          SET epoch = left(replace(gen_random_uuid()::text, '-', ''), 16), purged_tx_id = '0', purged_seq = 0,
              purged_at = NULL
        RETURNING epoch`,
    );
    await client.query(`DELETE FROM consumer_offsets WHERE group_id = $1`, [groupId]);
    await client.query('COMMIT');
    return { epoch: rows[0]!.epoch };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    release();
  }
}
