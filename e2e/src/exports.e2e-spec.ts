import { randomUUID } from 'node:crypto';
import {
  type ErrorBody,
  errorBodySchema,
  type ExportFormat,
  type ExportListReply,
  exportListReplySchema,
  type Location,
  type ServiceabilityStatus,
  validate,
} from '@lx/contracts';
import { seededRandom, waitFor } from '@lx/testing';
import {
  type ApiClient,
  awaitLocationGroup,
  awaitReadSide,
  ClientRegistry,
  describeReply,
  type HttpReply,
  OperatorApi,
  type WrittenLocation,
} from './support/api';
import {
  acceptedExport,
  awaitCompleted,
  compareIds,
  type CompletedExport,
  type ExportFile,
  fetchExportFile,
  instantKey,
  requestExport,
  runExport,
} from './support/exports';

/**
 * Bulk exports through the ingress: POST /locations/exports, GET /locations/exports/{id}, the unauthenticated
 * download, the json and csv file layouts, the exportTimestamp watermark of chained incremental exports, isolation
 * between RSPs, input errors and Idempotency-Key. Every export is filtered to a location group the test created, so
 * the other tests' data in the shared stack never shows up in it.
 */

/** details.resourceType of a 404 for an export request, as the export contract names it. */
const EXPORT_RESOURCE_TYPE = 'export';

const unique = () => randomUUID().slice(0, 8);

/** The error body of a reply, checked against `{ error: { code, message, details? } }`. */
function errorOf(what: string, reply: HttpReply): ErrorBody['error'] {
  const body = validate(errorBodySchema, reply.body);
  if (!body.ok) throw new Error(`${describeReply(what, reply)}: not the error shape ${JSON.stringify(body.issues)}`);
  return body.value.error;
}

/** The export's locations keyed by id. */
const byId = (file: ExportFile): Map<string, Location> =>
  new Map(file.locations.map((location) => [location.id, location]));

describe('bulk exports through the ingress', () => {
  let registry: ClientRegistry;
  let operator: OperatorApi;
  let rsp: ApiClient;
  let otherRsp: ApiClient;
  /** A group without locations, for the tests that need a valid filter but no data. */
  let emptyGroupId: string;

  beforeAll(async () => {
    registry = new ClientRegistry(`e2e exports ${unique()}`);
    operator = new OperatorApi(await registry.operator());
    [rsp, otherRsp] = await Promise.all([registry.rsp(), registry.rsp()]);
    emptyGroupId = await operator.createLocationGroup(`e2e exports empty ${unique()}`);
    await awaitLocationGroup(rsp, emptyGroupId);
  }, 60_000);

  afterAll(async () => {
    await registry?.disableAll();
  });

  describe('round trip of every location shape', () => {
    const mduStatuses: ServiceabilityStatus[] = ['INACTIVE', 'CANCELLED', 'RETIRED'];

    it('serves json and csv files, downloadable without a token, equal to GET /locations/{id} for every location', async () => {
      const run = unique();
      const groupId = await operator.createLocationGroup(`e2e exports round trip ${run}`);
      const mduId = await operator.createAddressGroup(`e2e exports MDU ${run}`);
      const geography = { country: 'AU', region: 'VIC', locality: 'Melbourne', postalCode: '3000' };
      const street = { streetNumber: '100', streetName: 'Collins', streetType: 'STREET' };
      const inputs: Record<string, Record<string, unknown>> = {
        addressOnly: {
          locationGroupId: groupId,
          geography,
          address: {
            streetNumber: '12B',
            streetName: 'Flinders',
            streetDirection: 'NE',
            streetType: 'LANE',
            streetSuffix: 'ROAD',
          },
          fiberAccessDetails: { serviceability: { status: 'PLANNED' } },
        },
        coordinatesOnly: {
          locationGroupId: groupId,
          geography: { country: 'AU', region: 'NSW', locality: 'Sydney', postalCode: '2000' },
          coordinates: { latitude: -33.8688, longitude: 151.2093 },
          fiberAccessDetails: { serviceability: { status: 'CONSTRUCTION', availableDate: '2025-02-28' } },
        },
        addressAndCoordinates: {
          locationGroupId: groupId,
          geography,
          address: { ...street, streetNumber: '1' },
          coordinates: { latitude: -37.8136, longitude: 144.9631 },
          fiberAccessDetails: {
            circuitId: 'CIR-0001',
            fda: 'FDA-07',
            fdh: 'FDH-2',
            splitterPort: '1-16',
            layer2AccessProtocol: 'GPON',
            dropStatus: 'UNDERGROUND_COMPLETE',
            serviceability: { status: 'ACTIVE', availableDate: '2024-02-29' },
          },
        },
        extremeCoordinates: {
          locationGroupId: groupId,
          geography: { country: 'NZ', region: 'AUK', locality: 'Auckland', postalCode: '1010' },
          coordinates: { latitude: -1e-7, longitude: 179.9999999 },
        },
        customFields: {
          locationGroupId: groupId,
          geography,
          coordinates: { latitude: 90, longitude: -180 },
          fiberAccessDetails: { dropStatus: 'TEMP_DROP', serviceability: { status: 'ACTIVE' } },
          customFields: {
            tags: ['fiber', 'priority', 3, true, -0.5],
            floors: 12,
            ratio: -0.125,
            big: 12345678901234,
            mdu: false,
            empty: [],
            label: 'a "quoted", comma\nline',
            'key with spaces, "quotes" and ü': 'ok',
          },
        },
        awkwardNotes: {
          locationGroupId: groupId,
          geography: { country: 'CH', region: 'ZH', locality: 'Zürich', postalCode: '8001' },
          address: { streetNumber: '7', streetName: 'Bahnhofstraße', streetType: 'STRASSE' },
          notes: 'Zürich – 北京 "quoted", line\nbreak; windows\r\nline, tab\tend, emoji 🚀, trailing quote"',
          customFields: { note: '"', comma: ',', crlf: '\r\n' },
        },
        ...Object.fromEntries(
          mduStatuses.map((status, index) => [
            `mdu${index + 1}`,
            {
              locationGroupId: groupId,
              geography,
              address: {
                ...street,
                subunitType: ['APT', 'APARTMENT', 'SUITE'][index],
                subunitIdentifier: `${index + 1}0${index === 0 ? 'A' : ''}`,
                addressGroupId: mduId,
              },
              fiberAccessDetails: { layer2AccessProtocol: 'XGS-PON', serviceability: { status } },
            },
          ]),
        ),
      };

      const written = new Map<string, WrittenLocation & { label: string }>();
      for (const [label, input] of Object.entries(inputs)) {
        const write = await operator.createLocation(input);
        written.set(write.location.id, { ...write, label });
      }
      await awaitLocationGroup(rsp, groupId);
      // What an RSP reads for each location, once the read side has every write.
      const served = new Map<string, Location>();
      for (const [id, write] of written) served.set(id, await awaitReadSide(rsp, id, write.version));

      const exports = await Promise.all(
        (['json', 'csv'] as ExportFormat[]).map((format) =>
          runExport(rsp, { format, filters: { locationGroupId: groupId } }),
        ),
      );

      for (const { status, file } of exports) {
        expect({ format: status.format, totalCount: status.totalCount }).toEqual({
          format: status.format,
          totalCount: written.size,
        });
        expect(Date.parse(status.downloadExpiresAt)).toBeGreaterThan(Date.now());
        const exported = byId(file);
        expect([...exported.keys()].sort()).toEqual([...written.keys()].sort());
        for (const [id, location] of exported) {
          expect({ format: status.format, shape: written.get(id)?.label, location }).toEqual({
            format: status.format,
            shape: written.get(id)?.label,
            location: served.get(id),
          });
        }
      }
    }, 180_000);
  });

  describe('chained incremental exports while a writer keeps changing locations', () => {
    /** The only writer of the test's group: PATCHes its locations and now and then creates one, one write at a time. */
    class Writer {
      readonly seed = Date.now() % 1_000_000;
      /** Every write's reply, in the order the writes were made (each waits for the previous one). */
      readonly log: WrittenLocation[] = [];
      readonly latest = new Map<string, WrittenLocation>();
      error: Error | undefined;
      private readonly random = seededRandom(this.seed);
      private stopped = false;
      private done: Promise<void> = Promise.resolve();

      constructor(
        private readonly api: OperatorApi,
        private readonly groupId: string,
      ) {}

      get writes(): number {
        return this.log.length;
      }

      record(write: WrittenLocation): void {
        this.log.push(write);
        this.latest.set(write.location.id, write);
      }

      async create(n: number): Promise<void> {
        const shape = Math.abs(n) % 3; // 0: both, 1: coordinates only, 2: address only
        this.record(
          await this.api.createLocation({
            locationGroupId: this.groupId,
            geography: { country: 'AU', region: 'QLD', locality: 'Brisbane', postalCode: '4000' },
            ...(shape !== 1 ? { address: { streetNumber: String(n), streetName: 'Queen', streetType: 'STREET' } } : {}),
            ...(shape !== 2 ? { coordinates: { latitude: -27.4698 - n / 1e5, longitude: 153.0251 } } : {}),
            fiberAccessDetails: { serviceability: { status: 'PLANNED' } },
            customFields: { counter: n, origin: 'writer' },
          }),
        );
      }

      start(maxWrites: number): void {
        this.done = (async () => {
          try {
            for (let n = 1; !this.stopped && n <= maxWrites; n += 1) {
              if (n % 10 === 0) {
                await this.create(n);
              } else {
                const ids = [...this.latest.keys()];
                const id = ids[Math.floor(this.random() * ids.length)]!;
                this.record(await this.api.patchLocation(id, this.patch(n)));
              }
              // A little room for the exports' own requests; the writes still overlap every export.
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
          } catch (error) {
            this.error = error as Error;
          }
        })();
      }

      /** A real change every time (customFields.counter), sometimes removing fields or moving the status. */
      patch(n: number): Record<string, unknown> {
        const statuses: ServiceabilityStatus[] = ['PLANNED', 'CONSTRUCTION', 'ACTIVE', 'INACTIVE'];
        const patch: Record<string, unknown> = {
          notes: `write ${n}: "quoted", comma\nnext line ü`,
          customFields: { counter: n, tags: ['w', n, n % 2 === 0] },
        };
        if (n % 7 === 0) patch['notes'] = null;
        if (n % 3 === 0) patch['customFields'] = { counter: n, tags: null };
        if (n % 5 === 0) {
          patch['fiberAccessDetails'] = {
            serviceability: { status: statuses[Math.floor(this.random() * statuses.length)] },
          };
        }
        return patch;
      }

      /** Waits until the writer has made `count` writes in all; fails at once if a write failed. */
      async awaitWrites(count: number): Promise<void> {
        await waitFor(
          `the writer to reach ${count} writes`,
          async () => this.error !== undefined || this.writes >= count,
          60_000,
        );
        if (this.error) throw this.error;
      }

      async stop(): Promise<void> {
        this.stopped = true;
        await this.done;
        if (this.error) throw this.error;
      }
    }

    it('has no gap: applying full + incremental exports in order gives every location as GET /locations/{id} serves it', async () => {
      const reader = await registry.rsp();
      const groupId = await operator.createLocationGroup(`e2e exports chain ${unique()}`);
      const writer = new Writer(operator, groupId);
      for (let n = 1; n <= 8; n += 1) await writer.create(-n);
      await awaitLocationGroup(reader, groupId);
      for (const { location, version } of writer.latest.values()) await awaitReadSide(reader, location.id, version);

      const chain: { status: CompletedExport; file: ExportFile }[] = [];
      const formats: ExportFormat[] = ['json', 'csv', 'json', 'csv', 'json'];
      try {
        writer.start(20_000); // a bound that a run of this test never reaches; stop() ends it
        let modifiedSince: string | undefined;
        for (const format of formats.slice(0, -1)) {
          // At least a few writes since the previous export completed, so each link of the chain has changes to carry.
          await writer.awaitWrites(writer.writes + 10);
          const link = await runExport(reader, {
            format,
            filters: { locationGroupId: groupId },
            ...(modifiedSince ? { modifiedSince } : {}),
          });
          chain.push(link);
          modifiedSince = link.status.exportTimestamp;
        }
        await writer.awaitWrites(writer.writes + 10);
      } finally {
        await writer.stop();
      }

      // The read side has every write before the last export is asked for, so the chain must end at the final state.
      const served = new Map<string, Location>();
      for (const { location, version } of writer.latest.values()) {
        served.set(location.id, await awaitReadSide(reader, location.id, version, 60_000));
      }
      const last = await runExport(reader, {
        format: formats.at(-1)!,
        filters: { locationGroupId: groupId },
        modifiedSince: chain.at(-1)!.status.exportTimestamp,
      });
      chain.push(last);

      const seen = new Map<string, Location>();
      const gaps: Record<string, unknown>[] = [];
      chain.forEach(({ status, file }, index) => {
        // An incremental export holds only locations changed after its modifiedSince.
        if (status.modifiedSince !== undefined) {
          const since = instantKey(status.modifiedSince);
          const early = file.locations.filter((location) => instantKey(location.updatedAt) <= since);
          expect({ export: index, modifiedSince: status.modifiedSince, early }).toEqual({
            export: index,
            modifiedSince: status.modifiedSince,
            early: [],
          });
        }
        for (const location of file.locations) seen.set(location.id, location);
        // The watermark: every write with updatedAt ≤ exportTimestamp is in this export or an earlier one of the chain.
        const watermark = instantKey(status.exportTimestamp);
        const newestBefore = new Map<string, WrittenLocation>();
        for (const write of writer.log) {
          if (instantKey(write.location.updatedAt) <= watermark) newestBefore.set(write.location.id, write);
        }
        for (const [id, write] of newestBefore) {
          const have = seen.get(id);
          if (have === undefined || instantKey(have.updatedAt) < instantKey(write.location.updatedAt)) {
            gaps.push({
              export: index,
              requestId: status.requestId,
              exportTimestamp: status.exportTimestamp,
              modifiedSince: status.modifiedSince,
              id,
              missingVersion: write.version,
              missingUpdatedAt: write.location.updatedAt,
              chainHas: have?.updatedAt ?? 'nothing',
            });
          }
        }
      });
      expect({ seed: writer.seed, writes: writer.writes, gaps }).toEqual({
        seed: writer.seed,
        writes: writer.writes,
        gaps: [],
      });

      expect([...seen.keys()].sort()).toEqual([...writer.latest.keys()].sort());
      for (const [id, { location: lastWritten }] of writer.latest) {
        expect({ id, chain: seen.get(id) }).toEqual({ id, chain: served.get(id) });
        expect({ id, chain: seen.get(id) }).toEqual({ id, chain: lastWritten });
      }
    }, 420_000);
  });

  describe('groups in JSON exports', () => {
    it('a full export holds every live group; the next, from its exportTimestamp, the groups changed since, deleted ones as tombstones, without waiting for the read side', async () => {
      const reader = await registry.rsp();
      const run = unique();
      const area = { id: '', name: `e2e exports groups ${run} area`, type: 'OTHER' };
      const doomed = { id: '', name: `e2e exports groups ${run} doomed`, type: 'OTHER' };
      const mdu = { id: '', name: `e2e exports groups ${run} MDU`, type: 'MDU_COMPLEX' };
      area.id = await operator.createLocationGroup(area.name);
      doomed.id = await operator.createLocationGroup(doomed.name);
      mdu.id = await operator.createAddressGroup(mdu.name);
      // The export request checks its filter against the read side; the groups in the file need no such wait.
      await awaitLocationGroup(reader, area.id);
      await operator.createLocation({
        locationGroupId: area.id,
        geography: { country: 'AU', region: 'TAS', locality: 'Hobart', postalCode: '7000' },
        address: { streetNumber: '3', streetName: 'Elizabeth', streetType: 'STREET', addressGroupId: mdu.id },
      });
      const ours = <T extends { id: string }>(groups: T[] | undefined, ...wanted: { id: string }[]) =>
        (groups ?? []).filter((group) => wanted.some((one) => one.id === group.id));

      const full = await runExport(reader, { format: 'json', filters: { locationGroupId: area.id } });
      expect(full.file.locations.map((location) => location.address?.addressGroupId)).toEqual([mdu.id]);
      expect(ours(full.file.locationGroups, area, doomed)).toEqual(
        [area, doomed].sort((a, b) => compareIds(a.id, b.id)),
      );
      expect(ours(full.file.addressGroups, mdu)).toEqual([mdu]);
      // A full export holds no tombstones, of this test or any other.
      expect(
        [...(full.file.locationGroups ?? []), ...(full.file.addressGroups ?? [])].filter((g) => g.deletedAt),
      ).toEqual([]);

      // Changes after the full export's watermark, then at once the incremental export from it.
      const renamed = (await operator.patchGroup('address-groups', mdu.id, { name: `${mdu.name} renamed` })).group;
      await operator.deleteGroup('location-groups', doomed.id);
      const fresh = { id: '', name: `e2e exports groups ${run} fresh`, type: 'OTHER' };
      fresh.id = await operator.createLocationGroup(fresh.name);
      const next = await runExport(reader, {
        format: 'json',
        modifiedSince: full.status.exportTimestamp,
        filters: { locationGroupId: area.id },
      });
      expect(next.file.locations).toEqual([]);
      const tombstone = { ...doomed, deletedAt: expect.any(String) as unknown as string };
      expect(ours(next.file.locationGroups, area, doomed, fresh)).toEqual(
        [tombstone, fresh].sort((a, b) => compareIds(a.id, b.id)),
      );
      expect(ours(next.file.addressGroups, mdu)).toEqual([renamed]);
      // The deletion lies between the two watermarks: after the first (the fence), at or before the second.
      const deletedAt = ours(next.file.locationGroups, doomed)[0]!.deletedAt!;
      expect(instantKey(deletedAt) > instantKey(full.status.exportTimestamp)).toBe(true);
      expect(instantKey(deletedAt) <= instantKey(next.status.exportTimestamp)).toBe(true);
    }, 120_000);
  });

  describe('isolation between RSPs', () => {
    it("answers 404 for another client's export and leaves it out of that client's list", async () => {
      const accepted = await requestExport(rsp, { format: 'json', filters: { locationGroupId: emptyGroupId } });

      const foreign = await otherRsp.get(`/locations/exports/${accepted.requestId}`);
      expect(foreign.status).toBe(404);
      expect(errorOf('GET foreign export', foreign)).toMatchObject({
        code: 'RESOURCE_NOT_FOUND',
        details: { resourceType: EXPORT_RESOURCE_TYPE, resourceId: accepted.requestId },
      });
      // The same answer as for an id that exists nowhere: a foreign export's existence is not revealed.
      const nowhere = randomUUID();
      const missing = await otherRsp.get(`/locations/exports/${nowhere}`);
      expect(missing.status).toBe(404);
      expect(errorOf('GET unknown export', missing)).toMatchObject({
        code: 'RESOURCE_NOT_FOUND',
        details: { resourceType: EXPORT_RESOURCE_TYPE, resourceId: nowhere },
      });

      const listed = async (client: ApiClient): Promise<string[]> => {
        const reply = await client.get<ExportListReply>('/locations/exports?limit=100');
        if (reply.status !== 200) throw new Error(describeReply('GET /locations/exports', reply));
        const list = validate(exportListReplySchema, reply.body);
        if (!list.ok)
          throw new Error(`GET /locations/exports breaks the contract: ${JSON.stringify(list.issues)} ${reply.text}`);
        return list.value.exports.map((item) => item.requestId);
      };
      expect(await listed(rsp)).toContain(accepted.requestId);
      expect(await listed(otherRsp)).not.toContain(accepted.requestId);
      // The owner still reads it.
      expect((await rsp.get(`/locations/exports/${accepted.requestId}`)).status).toBe(200);
    });
  });

  describe('bad input', () => {
    const future = () => new Date(Date.now() + 24 * 3600_000).toISOString();

    it.each<[string, string, () => unknown]>([
      ['missing format', 'INVALID_FORMAT', () => ({})],
      ['format xml', 'INVALID_FORMAT', () => ({ format: 'xml' })],
      [
        'modifiedSince a date without time',
        'INVALID_DATE_RANGE',
        () => ({ format: 'json', modifiedSince: '2024-01-01' }),
      ],
      [
        'modifiedSince without Z',
        'INVALID_DATE_RANGE',
        () => ({ format: 'json', modifiedSince: '2024-01-01T00:00:00' }),
      ],
      ['modifiedSince in the future', 'INVALID_DATE_RANGE', () => ({ format: 'json', modifiedSince: future() })],
      [
        'a group that does not exist',
        'INVALID_GROUP_REFERENCE',
        () => ({ format: 'json', filters: { locationGroupId: randomUUID() } }),
      ],
    ])('refuses %s with 400 %s', async (_, code, body) => {
      const reply = await rsp.post('/locations/exports', body());
      expect({ status: reply.status, code: errorOf('POST /locations/exports', reply).code }).toEqual({
        status: 400,
        code,
      });
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['an unknown body field', { format: 'json', since: '2024-01-01T00:00:00Z' }, 'since'],
      ['an unknown filter', { format: 'json', filters: { region: 'VIC' } }, 'filters.region'],
    ])('refuses %s with 400 naming it in details.issues', async (_, body, field) => {
      const reply = await rsp.post('/locations/exports', body);
      expect(reply.status).toBe(400);
      const error = errorOf('POST /locations/exports', reply);
      const issues = (error.details?.['issues'] ?? []) as { field?: string }[];
      expect(issues.map((issue) => issue.field)).toContain(field);
    });

    it('refuses a malformed export id with 400 INVALID_REQUEST', async () => {
      const reply = await rsp.get('/locations/exports/not-a-uuid');
      expect({ status: reply.status, code: errorOf('GET /locations/exports/not-a-uuid', reply).code }).toEqual({
        status: 400,
        code: 'INVALID_REQUEST',
      });
    });
  });

  describe('Idempotency-Key', () => {
    it('answers the same request for the same key and body, and 409 CONFLICT for the same key with another body', async () => {
      const body = { format: 'json' as const, filters: { locationGroupId: emptyGroupId } };
      const key = randomUUID();
      const post = (payload: unknown, idempotencyKey: string) =>
        rsp.post('/locations/exports', payload, { 'idempotency-key': idempotencyKey });

      const first = acceptedExport('first POST', await post(body, key));
      const again = acceptedExport('repeated POST', await post(body, key));
      expect(again.requestId).toBe(first.requestId);

      const conflict = await post({ ...body, format: 'csv' }, key);
      expect({ status: conflict.status, code: errorOf('POST with a reused key', conflict).code }).toEqual({
        status: 409,
        code: 'CONFLICT',
      });

      // Another key is another request.
      const other = acceptedExport('POST with another key', await post(body, randomUUID()));
      expect(other.requestId).not.toBe(first.requestId);

      // The request the key stands for runs once and completes: an empty group exports an empty file.
      const status = await awaitCompleted(rsp, first.requestId);
      const file = await fetchExportFile(status);
      expect({ totalCount: status.totalCount, locations: file.locations }).toEqual({ totalCount: 0, locations: [] });
    }, 90_000);
  });
});
