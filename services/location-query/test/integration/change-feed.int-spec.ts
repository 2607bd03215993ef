import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  type AddressGroup,
  type AnyEvent,
  changeDeliveryOf,
  changeFeedPageSchema,
  type ChangeEventType,
  EVENT_CATALOG,
  type EventOf,
  KAFKA_HEADERS,
  type Location,
  type LocationGroup,
  validate,
} from '@lx/contracts';
import { createServiceApp } from '@lx/platform';
import { aNewLocation, waitFor } from '@lx/testing';
import { AppModule } from '../../src/app.module';
import { encodeChangeCursor } from '../../src/change-feed/domain/change-cursor';
import { resetChangeFeed } from '../../src/change-feed/infrastructure/change-feed-reset';
import { PurgeChangesSchedule } from '../../src/change-feed/retention/purge-changes.schedule';
import { loadLocationQueryConfig } from '../../src/config/location-query.config';
import { type LocationQueryHarness, startLocationQuery } from '../support/location-query-harness';

type Resource = Location | LocationGroup | AddressGroup;
type Change = { event: AnyEvent & { version: number } };
interface Page {
  changes: Change[];
  next: string;
  hasMore: boolean;
}

const DAY_MS = 86_400_000;

/**
 * The change feed over real Kafka and PostgreSQL: the projection (its own consumer group, from the start of the file's
 * topics) and GET /locations/changes through the HTTP stack. The tests run in order and share the feed: the first one
 * needs the file's first events at its front.
 */
describe('location-query change feed', () => {
  let service: LocationQueryHarness;
  /** The app answering now: the harness's, or the one started after a restart. */
  let app: NestFastifyApplication;
  let token: string;

  beforeAll(async () => {
    service = await startLocationQuery();
    app = service.app;
    token = await service.issuer.token({ scopes: ['locations:read'] });
  }, 60_000);

  afterAll(async () => {
    if (app !== service?.app) await app?.close();
    await service?.close();
  });

  const get = async (url: string, bearer: string | null = token) => {
    const response = await app
      .getHttpAdapter()
      .getInstance()
      .inject({ method: 'GET', url, headers: bearer === null ? {} : { authorization: `Bearer ${bearer}` } });
    return { status: response.statusCode, text: response.body, json: () => JSON.parse(response.body) as unknown };
  };

  /** One page; `checked` false for the test that stores placeholder bodies the schema would refuse. */
  const page = async (after?: string, limit?: number, checked = true): Promise<Page> => {
    const query = new URLSearchParams();
    if (after !== undefined) query.set('after', after);
    if (limit !== undefined) query.set('limit', String(limit));
    const reply = await get(`/locations/changes?${query.toString()}`);
    expect(reply.status).toBe(200);
    const body = reply.json();
    if (checked) expect(validate(changeFeedPageSchema, body).ok).toBe(true);
    return body as Page;
  };

  /** Reads pages from `after` until `done` holds for what was read, returning everything read and the last cursor. */
  const readUntil = async (after: string | undefined, done: (changes: Change[]) => boolean, limit = 50) => {
    const changes: Change[] = [];
    let cursor = after;
    await waitFor('the feed to hold the changes', async () => {
      for (;;) {
        const next = await page(cursor, limit);
        changes.push(...next.changes);
        cursor = next.next;
        if (!next.hasMore) break;
      }
      return done(changes);
    });
    return { changes, next: cursor! };
  };

  /** Publishes an event as location-command's relay does, and returns the envelope. */
  const publish = async <T extends ChangeEventType>(
    type: T,
    data: Resource,
    version: number,
    timestamp = new Date().toISOString(),
  ): Promise<EventOf<T>> => {
    const event = { id: randomUUID(), type, timestamp, source: 'it-change-feed', data } as unknown as EventOf<T>;
    await service.bus.publish(EVENT_CATALOG[type].topic, [
      {
        key: data.id,
        value: JSON.stringify(event),
        headers: { [KAFKA_HEADERS.aggregateVersion]: String(version) },
      },
    ]);
    return event;
  };

  const ids = (changes: readonly Change[]) => changes.map((change) => change.event.id);
  /** The events the first test has purged (the topics still hold them). */
  let purgedIds: string[] = [];

  it('purges the changes older than the retention from the front, and refuses a cursor behind the purge with 410', async () => {
    const old = new Date(Date.now() - 8 * DAY_MS).toISOString();
    const location = aNewLocation();
    const stale = [
      await publish('LOCATION_CREATED', location, 1, old),
      await publish('LOCATION_UPDATED', { ...location, notes: 'two' }, 2, old),
      await publish('LOCATION_UPDATED', { ...location, notes: 'three' }, 3, old),
    ];
    const fresh = await publish('LOCATION_UPDATED', { ...location, notes: 'four' }, 4);
    const all = await readUntil(undefined, (changes) => changes.length === 4);
    expect(ids(all.changes)).toEqual([...stale, fresh].map((event) => event.id));
    const afterFirst = (await page(undefined, 1)).next;

    const purged = await app.get(PurgeChangesSchedule).execute();
    expect(purged).toBe(3);
    purgedIds = stale.map((event) => event.id);

    const expired = await get(`/locations/changes?after=${afterFirst}`);
    expect(expired.status).toBe(410);
    expect(expired.json()).toEqual({
      error: {
        code: 'CHANGE_CURSOR_EXPIRED',
        message: expect.stringContaining('Catch up by an export (POST /locations/exports)') as string,
        details: { parameter: 'after', reason: 'retention', retentionDays: 7 },
      },
    });
    // From the start: the oldest retained change; and the cursor read past the purge is still good.
    expect(ids((await page()).changes)).toEqual([fresh.id]);
    expect((await page(all.next)).changes).toEqual([]);
    const metrics = await get('/metrics', null);
    expect(metrics.text).toMatch(/^change_feed_purged_changes_total 3$/m);
    expect(metrics.text).toMatch(/^change_feed_expired_cursors_total\{reason="retention"\} 1$/m);
    expect(metrics.text).toMatch(/^change_feed_oldest_change_age_seconds \d/m);
  });

  it('refuses a cursor of another epoch (a rebuilt feed) with 410', async () => {
    const foreign = encodeChangeCursor({ epoch: '0000000000000000', txId: '1', seq: '1' });
    const reply = await get(`/locations/changes?after=${foreign}`);
    expect(reply.status).toBe(410);
    expect(reply.json()).toMatchObject({ error: { code: 'CHANGE_CURSOR_EXPIRED', details: { reason: 'epoch' } } });
  });

  it('describes each change exactly as the webhook does, for locations and both kinds of groups', async () => {
    const start = (await readUntil(undefined, () => true)).next;
    const location = aNewLocation();
    const group: LocationGroup = { id: randomUUID(), name: 'Phase 1', type: 'OTHER' };
    const mdu: AddressGroup = { id: randomUUID(), name: 'Tower A', type: 'MDU_COMPLEX' };
    const published = [
      { event: await publish('LOCATION_GROUP_CREATED', group, 1), version: 1 },
      { event: await publish('ADDRESS_GROUP_CREATED', mdu, 1), version: 1 },
      { event: await publish('LOCATION_CREATED', location, 1), version: 1 },
      { event: await publish('ADDRESS_GROUP_DELETED', mdu, 2), version: 2 },
    ];
    const read = await readUntil(start, (changes) => changes.length === published.length);
    const expected = new Map(
      published.map(({ event, version }) => [event.id, JSON.stringify(changeDeliveryOf(event, version))]),
    );
    // The stored text is the webhook body's text, byte for byte.
    const reply = await get(`/locations/changes?after=${start}&limit=10`);
    const texts = (JSON.parse(reply.text) as Page).changes.map((change) => JSON.stringify(change));
    expect(new Set(texts)).toEqual(new Set(expected.values()));
    expect(read.changes.map((change) => JSON.stringify(change))).toEqual(
      read.changes.map((change) => expected.get(change.event.id)),
    );
  });

  it('passes over a repeated event and one older than a version already in the feed', async () => {
    const start = (await readUntil(undefined, () => true)).next;
    const location = aNewLocation();
    const first = await publish('LOCATION_CREATED', location, 1);
    await service.bus.publish(EVENT_CATALOG.LOCATION_CREATED.topic, [
      { key: location.id, value: JSON.stringify(first), headers: { [KAFKA_HEADERS.aggregateVersion]: '1' } },
    ]);
    await publish('LOCATION_UPDATED', { ...location, notes: 'v3' }, 3);
    await publish('LOCATION_UPDATED', { ...location, notes: 'v2 late' }, 2);
    await publish('LOCATION_UPDATED', { ...location, notes: 'v3 again, another event id' }, 3);
    // The same location's next version, behind the others on its partition: once it is in, they have been applied.
    const marker = await publish('LOCATION_UPDATED', { ...location, notes: 'v4' }, 4);
    const read = await readUntil(start, (changes) => ids(changes).includes(marker.id));
    const versions = read.changes
      .filter((change) => (change.event.data as { id: string }).id === location.id)
      .map((change) => change.event.version);
    expect(versions).toEqual([1, 3, 4]);
  });

  it('answers 400 naming the parameter for bad input, and 401 without a token', async () => {
    const cases: [string, string, string][] = [
      ['limit=0', 'INVALID_LIMIT', 'limit'],
      ['limit=1001', 'INVALID_LIMIT', 'limit'],
      ['limit=ten', 'INVALID_LIMIT', 'limit'],
      ['after=', 'INVALID_REQUEST', 'after'],
      ['after=not-a-cursor', 'INVALID_REQUEST', 'after'],
      [`after=${Buffer.from('{"v":1}').toString('base64url')}`, 'INVALID_REQUEST', 'after'],
      ['after=a&after=b', 'INVALID_REQUEST', 'after'],
      ['since=2024-01-01T00:00:00Z', 'INVALID_FILTER', 'since'],
    ];
    for (const [query, code, field] of cases) {
      const reply = await get(`/locations/changes?${query}`);
      expect({ query, status: reply.status }).toEqual({ query, status: 400 });
      expect(reply.json()).toMatchObject({
        error: { code, details: { issues: [expect.objectContaining({ field })] } },
      });
    }
    expect((await get('/locations/changes', null)).status).toBe(401);
  });

  it('never returns a change behind a cursor it handed out while an earlier transaction is still open', async () => {
    const start = (await readUntil(undefined, () => true)).next;
    const insert = (client: { query: (text: string, values: unknown[]) => Promise<unknown> }, id: string) =>
      client.query(
        `INSERT INTO location_changes (event_id, resource_type, resource_id, version, occurred_at, body)
         VALUES ($1, 'location', $1, 1, now(), '{"event":{}}')`,
        [id],
      );
    const slow = new (await import('pg')).Client({
      connectionString: service.env['DATABASE_URL'],
      options: `-c search_path=${service.schema}`,
    });
    await slow.connect();
    try {
      await slow.query('BEGIN');
      const slowId = randomUUID();
      await insert(slow, slowId);
      const fastId = randomUUID();
      await insert(service.db, fastId);
      // The later transaction has committed, the earlier one not: nothing of either may be read yet.
      const during = await page(start, undefined, false);
      expect(during.changes).toEqual([]);
      expect(during.next).toBe(start);
      await slow.query('COMMIT');
      const after = await page(start, undefined, false);
      expect(after.changes.map((change) => change.event)).toEqual([{}, {}]);
      expect((await page(during.next, undefined, false)).changes).toHaveLength(2);
    } finally {
      await slow.query('ROLLBACK').catch(() => undefined);
      await slow.end();
      await service.db.query(`DELETE FROM location_changes WHERE body::text = '{"event":{}}'`);
    }
  });

  it('under concurrent writes, two replicas projecting and a reader paging all along, reads every change once, each resource in version order', async () => {
    const start = (await readUntil(undefined, () => true)).next;
    const locations = Array.from({ length: 40 }, () => aNewLocation());
    const groups: LocationGroup[] = Array.from({ length: 5 }, (_, n) => ({
      id: randomUUID(),
      name: `G${n}`,
      type: 'OTHER',
    }));
    const VERSIONS = 12;
    const published: string[] = [];
    let writing = true;
    const writer = (async () => {
      try {
        for (let version = 1; version <= VERSIONS; version += 1) {
          // Every resource's next version at once: many partitions, applied in concurrent transactions.
          const events = await Promise.all([
            ...locations.map((location) =>
              publish(
                version === 1 ? 'LOCATION_CREATED' : 'LOCATION_UPDATED',
                { ...location, notes: `v${version}` },
                version,
              ),
            ),
            ...groups.map((group) =>
              publish(
                version === 1 ? 'LOCATION_GROUP_CREATED' : 'LOCATION_GROUP_UPDATED',
                { ...group, name: `${group.name} v${version}` },
                version,
              ),
            ),
          ]);
          published.push(...events.map((event) => event.id));
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      } finally {
        writing = false;
      }
    })();
    // A second replica joins the feed's consumer group while the writes go on: the partitions are shared out anew and
    // applied by two processes' transactions at once.
    const config = loadLocationQueryConfig(service.env);
    const replica = await createServiceApp('location-query', AppModule.register(config), config.http);
    await replica.init();
    const read: Change[] = [];
    let cursor = start;
    const expectedCount = (locations.length + groups.length) * VERSIONS;
    const deadline = Date.now() + 60_000;
    while ((writing || read.length < expectedCount) && Date.now() < deadline) {
      const next = await page(cursor, 7);
      read.push(...next.changes);
      cursor = next.next;
      if (!next.hasMore) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await writer;
    await replica.close();

    expect(read).toHaveLength(expectedCount);
    expect(new Set(ids(read)).size).toBe(expectedCount);
    expect(new Set(ids(read))).toEqual(new Set(published));
    const versionsOf = new Map<string, number[]>();
    for (const change of read) {
      const id = (change.event.data as { id: string }).id;
      versionsOf.set(id, [...(versionsOf.get(id) ?? []), change.event.version]);
    }
    const inOrder = Array.from({ length: VERSIONS }, (_, n) => n + 1);
    for (const versions of versionsOf.values()) expect(versions).toEqual(inOrder);
  }, 120_000);

  const restart = async (between: () => Promise<void> = async () => undefined) => {
    await app.close();
    await between();
    const config = loadLocationQueryConfig(service.env);
    app = await createServiceApp('location-query', AppModule.register(config), config.http);
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  };

  it('resumes from a cursor after the service restarts, with the changes published while it was down', async () => {
    const start = (await readUntil(undefined, () => true)).next;
    const location = aNewLocation();
    const before = await publish('LOCATION_CREATED', location, 1);
    const read = await readUntil(start, (changes) => ids(changes).includes(before.id));
    expect(ids(read.changes)).toEqual([before.id]);

    let during: AnyEvent[] = [];
    await restart(async () => {
      during = [
        await publish('LOCATION_UPDATED', { ...location, notes: 'while down' }, 2),
        await publish('LOCATION_UPDATED', { ...location, notes: 'still down' }, 3),
      ];
    });
    const after = await publish('LOCATION_UPDATED', { ...location, notes: 'after' }, 4);

    const resumed = await readUntil(read.next, (changes) => ids(changes).includes(after.id));
    expect(ids(resumed.changes)).toEqual([...during, after].map((event) => event.id));
    expect(resumed.changes.map((change) => change.event.version)).toEqual([2, 3, 4]);
  }, 60_000);

  it('inserts nothing while the feed holds transaction ids ahead of the cluster (a restore elsewhere), until reset', async () => {
    const start = (await readUntil(undefined, () => true)).next;
    const future = randomUUID();
    await service.db.query(
      `INSERT INTO location_changes (tx_id, event_id, resource_type, resource_id, version, occurred_at, body)
       VALUES ((pg_current_xact_id()::text::numeric + 1000000000)::text::xid8, $1, 'location', $1, 1, now(), '{}')`,
      [future],
    );
    const held = await publish('LOCATION_CREATED', aNewLocation(), 1);
    await waitFor('readiness to report the feed down', async () => {
      const ready = await get('/health/ready', null);
      return ready.status === 503 && JSON.stringify(ready.json()).includes('reset-change-feed');
    });
    const { rows } = await service.db.query(`SELECT 1 FROM location_changes WHERE event_id = $1`, [held.id]);
    expect(rows).toEqual([]);

    // Reset with the service stopped: a new epoch, and the feed filled again from the start of the topics.
    const { rows: heldBefore } = await service.db.query<{ event_id: string }>(
      `SELECT event_id FROM location_changes WHERE event_id <> $1`,
      [future],
    );
    const expected = new Set([...heldBefore.map((row) => row.event_id), held.id]);
    await restart(async () => {
      const { Pool } = await import('pg');
      const pool = new Pool({
        connectionString: service.env['DATABASE_URL'],
        options: `-c search_path=${service.schema}`,
      });
      try {
        await resetChangeFeed(pool, `${service.groupId}-changes`);
      } finally {
        await pool.end();
      }
    });
    // Everything the topics hold: what the feed held and the held change; besides, the three purged at the start
    // (the topics keep them and a refill reads them again; their retention counts from their timestamps, so a purge
    // round, whenever it runs, takes them again). The partitions refill independently: wait for all of it.
    const refilled = await readUntil(
      undefined,
      (changes) => [...expected].every((id) => ids(changes).includes(id)),
      1000,
    );
    expect(new Set(ids(refilled.changes)).size).toBe(refilled.changes.length);
    expect(new Set(ids(refilled.changes).filter((id) => !purgedIds.includes(id)))).toEqual(expected);
    expect(new Set(ids(refilled.changes)).size).toBe(refilled.changes.length);
    const stale = await get(`/locations/changes?after=${start}`);
    expect(stale.status).toBe(410);
    expect(stale.json()).toMatchObject({ error: { details: { reason: 'epoch' } } });
  }, 60_000);
});
