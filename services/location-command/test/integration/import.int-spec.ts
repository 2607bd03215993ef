import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { LOCATION_CSV_COLUMNS, locationToCsvRow } from '@lx/contracts';
import { ImportBatchPreparer } from '../../src/import/commands/import-locations/import-batch.preparer';
import { aLocationBody, type LocationCommandHarness, startLocationCommand } from '../support/location-command-harness';

const ndjson = (...rows: unknown[]) =>
  rows.map((row) => (typeof row === 'string' ? row : JSON.stringify(row))).join('\n');

/** Bulk import of NDJSON and CSV files against real Postgres and Kafka. */
describe('bulk import', () => {
  let service: LocationCommandHarness;

  beforeAll(async () => {
    service = await startLocationCommand({ IMPORT_BATCH_SIZE: '3' });
  }, 60_000);

  afterAll(() => service?.close());

  const importFile = (payload: string | Readable, contentType: string, query = '') =>
    service.request('POST', `/operator/imports${query}`, { payload, contentType });
  const eventCount = async () => Number((await service.db.query('SELECT count(*) AS n FROM events')).rows[0].n);

  it('applies valid NDJSON rows in batches and reports every rejected row with its line and reason', async () => {
    const groupId = randomUUID();
    await service.request('PUT', `/operator/location-groups/${groupId}`, { body: { name: 'Phase 1', type: 'OTHER' } });
    const [a, b, c, d, e] = Array.from({ length: 5 }, () => randomUUID());
    const file = ndjson(
      { id: a, ...aLocationBody({ locationGroupId: groupId }) },
      { id: b, ...aLocationBody({ coordinates: { latitude: 91, longitude: 0 } }) },
      '',
      '{"id": "broken',
      { id: c, ...aLocationBody({ address: undefined }), customFields: { tier: 'gold', tags: ['a', 1, true] } },
      { id: d, ...aLocationBody({ locationGroupId: randomUUID() }) },
      aLocationBody(),
      { id: 'not-a-uuid', ...aLocationBody() },
      { id: e, ...aLocationBody({ status: 'PLANNED' }) },
      { id: e, ...aLocationBody({ status: 'ACTIVE' }) },
      [1, 2],
    );

    const reply = await importFile(file, 'application/x-ndjson');

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      mode: 'merge',
      rowsRead: 10,
      created: 3,
      updated: 1,
      unchanged: 0,
      rejected: 6,
      retired: 0,
      rejectionsOmitted: 0,
    });
    expect(reply.body.rejections.map((r: any) => [r.line, r.code, r.id])).toEqual([
      [2, 'INVALID_COORDINATES', b],
      [4, 'VALIDATION_ERROR', undefined],
      [6, 'INVALID_GROUP_REFERENCE', d],
      [7, 'VALIDATION_ERROR', undefined],
      [8, 'VALIDATION_ERROR', 'not-a-uuid'],
      [11, 'VALIDATION_ERROR', undefined],
    ]);
    expect(reply.body.rejections[0].details.issues[0]).toMatchObject({ field: 'coordinates.latitude', rule: 'range' });
    expect(reply.body.rejections[1].message).toMatch(/^line is not valid JSON/);
    expect(reply.body.rejections[3].message).toBe('id is required: an import row names the location it writes');

    const messages = await service.events.waitFor(4, [a!, c!, e!]);
    expect(messages.map((m) => [m.key, m.event.type, m.version])).toEqual(
      expect.arrayContaining([
        [a, 'LOCATION_CREATED', 1],
        [c, 'LOCATION_CREATED', 1],
        [e, 'LOCATION_CREATED', 1],
        [e, 'LOCATION_UPDATED', 2],
      ]),
    );
    expect((await service.request('GET', `/operator/locations/${c}`)).body.customFields).toEqual({
      tier: 'gold',
      tags: ['a', 1, true],
    });
  });

  it('re-importing the same file changes nothing and emits no event', async () => {
    const ids = Array.from({ length: 7 }, () => randomUUID());
    const file = ndjson(...ids.map((id, n) => ({ id, ...aLocationBody({ notes: `row ${n}` }) })));
    expect((await importFile(file, 'application/x-ndjson')).body).toMatchObject({ created: 7, rejected: 0 });
    const before = await eventCount();

    const again = await importFile(file, 'application/x-ndjson');

    expect(again.body).toMatchObject({ rowsRead: 7, created: 0, updated: 0, unchanged: 7, rejected: 0 });
    expect(await eventCount()).toBe(before);
  });

  it('imports the CSV export layout, and the export of imported locations re-imports as unchanged', async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const addressGroupId = randomUUID();
    await service.request('PUT', `/operator/address-groups/${addressGroupId}`, {
      body: { name: 'Tower', type: 'MDU_COMPLEX' },
    });
    const rows = [
      { 'geography.country': 'US', 'address.streetName': 'Main' },
      { 'coordinates.latitude': '40.1', 'coordinates.longitude': '-105' },
      {
        'address.addressGroupId': addressGroupId,
        'fiberAccessDetails.serviceability.status': 'ACTIVE',
        customFields: '{"floors":4}',
      },
    ].map((cells, n) => ({
      id: ids[n],
      'geography.country': 'US',
      'geography.region': 'CO',
      'geography.locality': 'Denver',
      'geography.postalCode': '80202',
      'address.streetNumber': n === 1 ? '' : '12',
      'address.streetName': n === 1 ? '' : 'Main',
      'address.streetType': n === 1 ? '' : 'ST',
      ...cells,
    }));
    const csv = stringify(rows, { header: true, columns: LOCATION_CSV_COLUMNS as string[] });

    const reply = await importFile(csv, 'text/csv; charset=utf-8');
    expect(reply.body).toMatchObject({ rowsRead: 3, created: 3, rejected: 0 });
    const third = (await service.request('GET', `/operator/locations/${ids[2]}`)).body;
    expect(third).toMatchObject({
      address: { streetNumber: '12', streetName: 'Main', streetType: 'ST', addressGroupId },
      fiberAccessDetails: { serviceability: { status: 'ACTIVE' } },
      customFields: { floors: 4 },
    });
    expect((await service.request('GET', `/operator/locations/${ids[1]}`)).body).toMatchObject({
      coordinates: { latitude: 40.1, longitude: -105 },
    });

    const exported = await Promise.all(
      ids.map(async (id) => (await service.request('GET', `/operator/locations/${id}`)).body),
    );
    const exportCsv = stringify([[...LOCATION_CSV_COLUMNS], ...exported.map(locationToCsvRow)]);
    expect((await importFile(exportCsv, 'text/csv')).body).toMatchObject({ rowsRead: 3, unchanged: 3, rejected: 0 });
  });

  it('rejects a CSV record with the wrong number of cells or broken custom fields by line, and goes on', async () => {
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    const header =
      'id,geography.country,geography.region,geography.locality,geography.postalCode,coordinates.latitude,coordinates.longitude,customFields';
    const csv = [
      header,
      `${a},US,CO,Denver,80202,1,2,`,
      `${b},US,CO,Denver,80202,1`,
      `${c},US,CO,Denver,80202,1,2,"{""tier"":"`,
      `${randomUUID()},US,CO,Denver,80202,95,2,`,
    ].join('\r\n');

    const reply = await importFile(csv, 'text/csv');

    expect(reply.body).toMatchObject({ rowsRead: 4, created: 1, rejected: 3 });
    expect(reply.body.rejections.map((r: any) => [r.line, r.code])).toEqual([
      [3, 'VALIDATION_ERROR'],
      [4, 'VALIDATION_ERROR'],
      [5, 'INVALID_COORDINATES'],
    ]);
    expect(reply.body.rejections[0].details.issues[0].rule).toBe('csv');
    expect(reply.body.rejections[1].details.issues[0]).toMatchObject({ field: 'customFields', rule: 'json' });
  });

  it('refuses a CSV whose header is not the location layout with 400 naming the columns, applying nothing', async () => {
    const before = await eventCount();
    const reply = await importFile(`id,colour\n${randomUUID()},blue\n`, 'text/csv');
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { line: 1, issues: [{ field: 'colour', rule: 'unknownColumn' }], report: { rowsRead: 0 } },
    });
    expect(await eventCount()).toBe(before);
  });

  it('applies the rows before an unreadable CSV tail and answers 400 INVALID_REQUEST with the report so far', async () => {
    const id = randomUUID();
    const csv = `id,geography.country,geography.region,geography.locality,geography.postalCode,coordinates.latitude,coordinates.longitude\n${id},US,CO,Denver,80202,1,2\n"${randomUUID()},US,CO`;
    const reply = await importFile(csv, 'text/csv');
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('INVALID_REQUEST');
    expect(reply.body.error.details.report).toMatchObject({ rowsRead: 1, created: 1 });
    expect((await service.request('GET', `/operator/locations/${id}`)).status).toBe(200);
  });

  it('applies the same rules as PUT: no status change out of RETIRED, no reference to a missing group', async () => {
    const id = randomUUID();
    await service.request('PUT', `/operator/locations/${id}`, { body: aLocationBody({ status: 'RETIRED' }) });
    const reply = await importFile(ndjson({ id, ...aLocationBody({ status: 'ACTIVE' }) }), 'application/x-ndjson');
    expect(reply.body.rejections).toEqual([
      {
        line: 1,
        id,
        code: 'INVALID_STATUS_TRANSITION',
        message: 'serviceability status cannot change from RETIRED to ACTIVE',
        details: { from: 'RETIRED', to: 'ACTIVE' },
      },
    ]);
  });

  it('streams a body of many batches, counting each row once', async () => {
    const ids = Array.from({ length: 50 }, () => randomUUID());
    const lines = ids.map((id) => `${JSON.stringify({ id, ...aLocationBody() })}\n`);
    // One byte at a time for the first rows: lines split across chunks must be put back together.
    const chunks = [...lines[0]!.split(''), ...lines.slice(1)];
    const reply = await importFile(Readable.from(chunks.map((chunk) => Buffer.from(chunk))), 'application/x-ndjson');
    expect(reply.body).toMatchObject({ rowsRead: 50, created: 50, rejected: 0 });
    expect(new Set((await service.storedEvents(...ids)).map((event) => event.stream_id)).size).toBe(50);
  });

  it('stays consistent when the API writes the same locations while an import runs: every write its own gapless version', async () => {
    const ids = Array.from({ length: 30 }, () => randomUUID());
    await importFile(ndjson(...ids.map((id) => ({ id, ...aLocationBody() }))), 'application/x-ndjson');
    const file = ndjson(...ids.map((id) => ({ id, ...aLocationBody({ notes: 'from the import' }) })));

    const [imported, ...patched] = await Promise.all([
      importFile(file, 'application/x-ndjson'),
      ...ids.map((id) => service.request('PATCH', `/operator/locations/${id}`, { body: { customFields: { api: 1 } } })),
    ]);

    expect(imported.body).toMatchObject({ rowsRead: 30, rejected: 0 });
    expect(imported.body.updated + imported.body.unchanged).toBe(30);
    expect(patched.map((reply) => reply.status)).toEqual(ids.map(() => 200));
    for (const id of ids) {
      const versions = (await service.storedEvents(id)).map((event) => event.stream_version);
      expect(versions).toEqual(versions.map((_, index) => index + 1));
      const current = await service.request('GET', `/operator/locations/${id}`);
      expect(current.headers['etag']).toBe(`"${versions.length}"`);
      const last = await service.db.query<{ payload: string }>(
        'SELECT payload::text AS payload FROM events WHERE stream_id = $1 ORDER BY stream_version DESC LIMIT 1',
        [id],
      );
      expect(current.body).toEqual((JSON.parse(last.rows[0]!.payload) as { data: unknown }).data);
    }
  });

  it('writes a batch whose locations an API write moves before each of its unlocked attempts, deciding it under locks', async () => {
    const id = randomUUID();
    await importFile(ndjson({ id, ...aLocationBody() }), 'application/x-ndjson');
    // Every unlocked decision of the batch is followed by a write of its location through the API, so the batch's
    // check at commit finds the version moved each time; only the attempt decided under locks can go through.
    const preparer = service.app.get(ImportBatchPreparer);
    const prepare = preparer.prepare.bind(preparer);
    let writes = 0;
    const spy = jest.spyOn(preparer, 'prepare').mockImplementation(async (...args) => {
      const prepared = await prepare(...args);
      writes += 1;
      const patched = await service.request('PATCH', `/operator/locations/${id}`, {
        body: { customFields: { api: writes } },
      });
      expect(patched.status).toBe(200);
      return prepared;
    });
    try {
      const imported = await importFile(
        ndjson({ id, ...aLocationBody({ notes: 'from the import' }) }),
        'application/x-ndjson',
      );

      expect(imported.status).toBe(200);
      expect(imported.body).toMatchObject({ rowsRead: 1, updated: 1, rejected: 0 });
      expect(writes).toBe(2);
      const current = await service.request('GET', `/operator/locations/${id}`);
      expect(current.headers['etag']).toBe('"4"');
      expect(current.body).toMatchObject({ notes: 'from the import' });
      expect(current.body.customFields).toBeUndefined();
    } finally {
      spy.mockRestore();
    }
  });

  it('caps the listed rejections and counts the rest', async () => {
    const capped = await startLocationCommand({ IMPORT_MAX_REPORTED_REJECTIONS: '2' });
    try {
      const reply = await capped.request('POST', '/operator/imports', {
        payload: ndjson('x', 'y', 'z', 'w'),
        contentType: 'application/x-ndjson',
      });
      expect(reply.body).toMatchObject({ rejected: 4, rejectionsOmitted: 2 });
      expect(reply.body.rejections.map((r: any) => r.line)).toEqual([1, 2]);
    } finally {
      await capped.close();
    }
  }, 60_000);

  it('answers 415 for another content type and 400 for an unknown mode', async () => {
    const json = await service.request('POST', '/operator/imports', { body: [{ id: randomUUID() }] });
    expect(json.status).toBe(415);
    expect(json.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const mode = await importFile(ndjson({ id: randomUUID() }), 'application/x-ndjson', '?mode=replace-all');
    expect(mode.status).toBe(400);
    expect(mode.body.error.details.issues[0]).toMatchObject({ field: 'mode', rule: 'enum' });
  });

  describe('full-replace', () => {
    it('retires every location in service that the file leaves out, and says how many', async () => {
      // A schema of its own: full-replace looks at every location the service holds.
      const isolated = await startLocationCommand({ IMPORT_BATCH_SIZE: '2' });
      try {
        const kept = randomUUID();
        const invalidInFile = randomUUID();
        const missing = [randomUUID(), randomUUID(), randomUUID()];
        const alreadyRetired = randomUUID();
        const cancelled = randomUUID();
        const put = (id: string, body: unknown) => isolated.request('PUT', `/operator/locations/${id}`, { body });
        for (const id of [kept, invalidInFile, ...missing]) await put(id, aLocationBody({ status: 'ACTIVE' }));
        await put(alreadyRetired, aLocationBody({ status: 'RETIRED' }));
        await put(cancelled, aLocationBody({ status: 'CANCELLED' }));
        const fresh = randomUUID();
        const file = ndjson(
          { id: kept, ...aLocationBody({ status: 'ACTIVE' }) },
          { id: invalidInFile, ...aLocationBody({ coordinates: { latitude: 500, longitude: 0 } }) },
          { id: fresh, ...aLocationBody() },
        );

        const status = async (id: string) =>
          (await isolated.request('GET', `/operator/locations/${id}`)).body.fiberAccessDetails?.serviceability?.status;
        const fullReplace = (query = '') =>
          isolated.request('POST', `/operator/imports?mode=full-replace${query}`, {
            payload: file,
            contentType: 'application/x-ndjson',
          });

        // 3 of the 5 in service before the import is above the default 10 %: refused, the rows applied.
        const refused = await fullReplace();
        expect(refused.status).toBe(409);
        expect(refused.body.error).toMatchObject({
          code: 'CONFLICT',
          details: {
            wouldRetire: 3,
            inService: 5,
            maxRetireShare: 0.1,
            report: { rowsRead: 3, created: 1, unchanged: 1, rejected: 1, retired: 0 },
          },
        });
        expect(refused.body.error.message).toContain('confirmRetirements=3');
        expect(await status(fresh)).toBeUndefined();
        expect((await isolated.request('GET', `/operator/locations/${fresh}`)).status).toBe(200);
        for (const id of missing) expect(await status(id)).toBe('ACTIVE');
        // A confirmation of another number is refused too.
        const mismatch = await fullReplace('&confirmRetirements=2');
        expect(mismatch.status).toBe(409);
        expect(mismatch.body.error.details).toMatchObject({ wouldRetire: 3, confirmRetirements: 2 });
        for (const id of missing) expect(await status(id)).toBe('ACTIVE');

        const reply = await fullReplace('&confirmRetirements=3');

        expect(reply.body).toMatchObject({
          mode: 'full-replace',
          rowsRead: 3,
          created: 0,
          unchanged: 2,
          rejected: 1,
          retired: 3,
        });
        for (const id of missing) expect(await status(id)).toBe('RETIRED');
        expect(await status(kept)).toBe('ACTIVE');
        expect(await status(invalidInFile)).toBe('ACTIVE');
        expect(await status(cancelled)).toBe('CANCELLED');
        const retiredEvents = await isolated.events.waitFor(6, missing);
        expect(
          retiredEvents.filter((m) => m.event.type === 'LOCATION_UPDATED').map((m) => m.event.modifiedFields),
        ).toEqual(missing.map(() => ({ fiberAccessDetails: { serviceability: { status: 'RETIRED' } } })));

        const again = await fullReplace();
        expect(again.body).toMatchObject({ created: 0, unchanged: 2, retired: 0 });
      } finally {
        await isolated.close();
      }
    }, 60_000);

    it('counts the share against the locations in service before the import, not diluted by the file', async () => {
      const isolated = await startLocationCommand({ IMPORT_BATCH_SIZE: '20' });
      try {
        const existing = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
        for (const id of existing)
          await isolated.request('PUT', `/operator/locations/${id}`, { body: aLocationBody() });
        // A wrong file: 40 new ids and none of the network's.
        const file = ndjson(...Array.from({ length: 40 }, () => ({ id: randomUUID(), ...aLocationBody() })));
        const reply = await isolated.request('POST', '/operator/imports?mode=full-replace', {
          payload: file,
          contentType: 'application/x-ndjson',
        });
        expect(reply.status).toBe(409);
        expect(reply.body.error.details).toMatchObject({ wouldRetire: 4, inService: 4, report: { created: 40 } });
        expect(reply.body.error.message).toContain('100 % of the 4 in service before the import, more than the 10 %');
        for (const id of existing) {
          expect((await isolated.storedEvents(id)).map((event) => event.event_type)).toEqual(['LOCATION_CREATED']);
        }
      } finally {
        await isolated.close();
      }
    }, 60_000);

    it('retires without a confirmation up to IMPORT_MAX_RETIRE_SHARE of the locations in service', async () => {
      const isolated = await startLocationCommand({ IMPORT_MAX_RETIRE_SHARE: '0.5' });
      try {
        const ids = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
        for (const id of ids) await isolated.request('PUT', `/operator/locations/${id}`, { body: aLocationBody() });
        const file = ndjson(...ids.slice(0, 2).map((id) => ({ id, ...aLocationBody() })));
        const reply = await isolated.request('POST', '/operator/imports?mode=full-replace', {
          payload: file,
          contentType: 'application/x-ndjson',
        });
        expect(reply.status).toBe(200);
        expect(reply.body).toMatchObject({ rowsRead: 2, retired: 2 });
      } finally {
        await isolated.close();
      }
    }, 60_000);

    it.each([
      ['mode=full-replace&confirmRetirements=abc', 'integer'],
      ['mode=full-replace&confirmRetirements=-1', 'integer'],
      ['mode=full-replace&confirmRetirements=1.5', 'integer'],
      ['mode=full-replace&confirmRetirements=1234567890123456', 'integer'],
      ['confirmRetirements=3', 'mode'],
    ])('refuses %s with 400 naming confirmRetirements before reading the file', async (query, rule) => {
      const id = randomUUID();
      const reply = await service.request('POST', `/operator/imports?${query}`, {
        payload: ndjson({ id, ...aLocationBody() }),
        contentType: 'application/x-ndjson',
      });
      expect(reply.status).toBe(400);
      expect(reply.body.error.details.issues).toEqual([expect.objectContaining({ field: 'confirmRetirements', rule })]);
      expect((await service.request('GET', `/operator/locations/${id}`)).status).toBe(404);
    });

    it('refuses an empty file with 400 and retires nothing (in merge mode too)', async () => {
      const isolated = await startLocationCommand();
      try {
        const id = randomUUID();
        await isolated.request('PUT', `/operator/locations/${id}`, { body: aLocationBody() });
        for (const [mode, payload, contentType] of [
          ['full-replace', '', 'application/x-ndjson'],
          ['full-replace', '\n\n', 'application/x-ndjson'],
          ['merge', '', 'text/csv'],
        ] as const) {
          const reply = await isolated.request('POST', `/operator/imports?mode=${mode}`, { payload, contentType });
          expect(reply.status).toBe(400);
          expect(reply.body.error).toMatchObject({
            code: 'VALIDATION_ERROR',
            details: { issues: [{ field: 'body', rule: 'nonEmpty' }], report: { rowsRead: 0, retired: 0 } },
          });
        }
        expect((await isolated.storedEvents(id)).map((event) => event.event_type)).toEqual(['LOCATION_CREATED']);
      } finally {
        await isolated.close();
      }
    }, 60_000);

    it('retires nothing when the file cannot be read to its end', async () => {
      const isolated = await startLocationCommand();
      try {
        const id = randomUUID();
        await isolated.request('PUT', `/operator/locations/${id}`, { body: aLocationBody() });
        const reply = await isolated.request('POST', '/operator/imports?mode=full-replace', {
          payload: 'id\n"unterminated',
          contentType: 'text/csv',
        });
        expect(reply.status).toBe(400);
        expect((await isolated.storedEvents(id)).map((event) => event.event_type)).toEqual(['LOCATION_CREATED']);
      } finally {
        await isolated.close();
      }
    }, 60_000);
  });
});
