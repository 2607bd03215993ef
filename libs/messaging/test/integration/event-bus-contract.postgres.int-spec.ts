import { Pool } from 'pg';
import { requireEnv, uniqueSuffix } from '@lx/testing';
import { PostgresEventLog } from '../../src';
import { describeEventBusContract } from './event-bus-contract';

describeEventBusContract('the embedded log (PostgresEventLog against the real PostgreSQL)', async () => {
  const schema = `event_log_it_${uniqueSuffix()}`;
  const pool = new Pool({ connectionString: requireEnv('DATABASE_URL'), max: 8 });
  const bus = new PostgresEventLog(pool, { schema, pollIntervalMs: 200 });
  return {
    bus,
    close: async () => {
      await bus.close();
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
});
