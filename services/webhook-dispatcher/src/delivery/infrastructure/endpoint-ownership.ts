import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { PG_POOL } from '@lx/platform';
import { LOG_CHANNEL_SQL } from './notification-log.repository';

const KEY = (name: string) => `hashtext(current_schema() || ':${name}')`;

/**
 * Which endpoints this replica serves, held as session-level advisory locks on one connection of its own: replicas
 * share the endpoints, each taking up to its fair share (endpoints ÷ replicas alive, counted by a lock every replica
 * holds), and a replica that dies takes its locks with its connection, so the others take its endpoints over at
 * their next rebalance. The same connection LISTENs for appends to the notification log. Lost connection: every
 * endpoint is lost at once (the dispatcher stops its lanes; the epoch of each endpoint fences a late checkpoint).
 */
@Injectable()
export class EndpointOwnership {
  private readonly logger = new Logger(EndpointOwnership.name);
  private session?: PoolClient;
  private readonly held = new Set<number>();
  private appended: () => void = () => undefined;
  private lost: () => void = () => undefined;

  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /** Whether the session is up; `connect` opens it when not. */
  get connected(): boolean {
    return this.session !== undefined;
  }

  /** Calls `appended` for each append to the log (from any replica), `lost` when the session drops. */
  listen(handlers: { appended: () => void; lost: () => void }): void {
    this.appended = handlers.appended;
    this.lost = handlers.lost;
  }

  async connect(): Promise<void> {
    if (this.session !== undefined) return;
    const session = await this.pool.connect();
    try {
      session.on('notification', () => this.appended());
      session.on('error', (error: Error) => this.drop(session, error));
      await session.query(`SELECT pg_advisory_lock(${KEY('replicas')}, $1)`, [(Math.random() * 2 ** 31) | 0]);
      const { rows } = await session.query<{ channel: string }>(`SELECT ${LOG_CHANNEL_SQL} AS channel`);
      await session.query(`LISTEN "${rows[0]!.channel}"`);
      this.session = session;
    } catch (error) {
      session.release(error as Error);
      throw error;
    }
  }

  /** The replicas alive: those holding the replica lock of this schema. */
  async replicas(): Promise<number> {
    const { rows } = await this.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM pg_locks
       WHERE locktype = 'advisory' AND granted AND objsubid = 2
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND classid = (${KEY('replicas')})::oid`,
    );
    return Math.max(1, rows[0]?.count ?? 1);
  }

  owns(endpointNo: number): boolean {
    return this.held.has(endpointNo);
  }

  /** Takes the endpoint when no other replica holds it. */
  async acquire(endpointNo: number): Promise<boolean> {
    const { rows } = await this.query<{ taken: boolean }>(
      `SELECT pg_try_advisory_lock(${KEY('endpoints')}, $1) AS taken`,
      [endpointNo],
    );
    if (rows[0]?.taken === true) this.held.add(endpointNo);
    return rows[0]?.taken === true;
  }

  async release(endpointNo: number): Promise<void> {
    if (!this.held.delete(endpointNo)) return;
    await this.query(`SELECT pg_advisory_unlock(${KEY('endpoints')}, $1)`, [endpointNo]).catch(() => undefined);
  }

  /** Ends the session: every lock goes with it. */
  async close(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    this.held.clear();
    if (session === undefined) return;
    await session.query(`SELECT pg_advisory_unlock_all()`).catch(() => undefined);
    // Not back to the pool: a LISTENing session is not for other work.
    session.release(new Error('ownership session closed'));
  }

  private async query<R extends object>(text: string, values: unknown[] = []): Promise<{ rows: R[] }> {
    const session = this.session;
    if (session === undefined) throw new Error('the ownership session is not connected');
    try {
      return await session.query<R & Record<string, unknown>>(text, values);
    } catch (error) {
      this.drop(session, error as Error);
      throw error;
    }
  }

  private drop(session: PoolClient, error: Error): void {
    if (this.session !== session) return;
    this.logger.warn({
      msg: 'Endpoint ownership session lost; its endpoints are free for any replica',
      err: error.message,
    });
    this.session = undefined;
    this.held.clear();
    session.release(error);
    this.lost();
  }
}
