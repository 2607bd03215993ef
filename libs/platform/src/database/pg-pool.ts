import type { Pool, PoolClient } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * The node-postgres pool behind a TypeORM data source (its search_path already set to the service's schema).
 * Projections and hot read paths use it directly: one round trip per statement, real row counts, COPY and cursors,
 * none of which TypeORM's query runner offers without overhead.
 */
export function pgPoolOf(dataSource: DataSource): Pool {
  const pool = (dataSource.driver as unknown as { master?: Pool }).master;
  if (pool === undefined) throw new Error('the data source is not initialized, or not on the postgres driver');
  return pool;
}

/**
 * Checks a client out of the pool with an 'error' listener for as long as it is out. node-postgres emits a lost
 * connection as an 'error' event on a checked-out client besides failing its query; without a listener that event
 * would crash the process. The returned release removes the listener and hands the client back (destroying it when
 * given an error).
 */
export async function checkOut(pool: Pool): Promise<{ client: PoolClient; release: (error?: Error) => void }> {
  const client = await pool.connect();
  const ignore = () => undefined;
  client.on('error', ignore);
  return {
    client,
    release: (error?: Error) => {
      client.removeListener('error', ignore);
      client.release(error);
    },
  };
}
