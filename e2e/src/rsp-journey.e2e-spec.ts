import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { Webhook } from 'standardwebhooks';
import {
  addressGroupListSchema,
  type ExportListReply,
  exportListReplySchema,
  type ExportNotification,
  exportNotificationSchema,
  type Location,
  locationGroupListSchema,
  locationListSchema,
  SCOPES,
  validate,
} from '@lx/contracts';
import { requireEnv, waitFor } from '@lx/testing';
import {
  awaitEqual,
  awaitSubscription,
  ClientRegistry,
  conforming,
  countsOf,
  OperatorApi,
  readLocation,
  readOk,
  statisticsCounts,
  type WrittenLocation,
} from './support/api';
import { awaitCompleted, compareIds, fetchExportFile, requestExport } from './support/exports';
import { type Receipt, startReceiver, stopReceiver } from './support/receiver';
import { OAuthLibraryClient } from './support/tokens';

/**
 * An RSP's journey through the public base URL only, as its integration would run it: a token from a standard OAuth
 * client library (openid-client: discovery, then the client credentials grant), the daily statistics check, reads by
 * id, the groups, then a bulk export polled until COMPLETED, downloaded without a token, and announced by a signed
 * webhook notification to the RSP's receiver. The data is the test's own, written through the operator API: one
 * location group and one address group under names unique to the run, and four locations in a locality unique to
 * the run, so every count and list is asserted exactly.
 */
describe("an RSP's journey through the public API", () => {
  const baseUrl = requireEnv('BASE_URL');
  const origin = new URL(baseUrl).origin;
  const run = randomUUID().slice(0, 8);
  const locality = `Hobart ${run}`;
  const groupName = `e2e rsp journey ${run} service area`;
  const addressGroupName = `e2e rsp journey ${run} MDU`;

  let registry: ClientRegistry;
  let rsp: OAuthLibraryClient;
  let webhookSecret: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let groupId: string;
  let addressGroupId: string;
  /** The test's locations as the operator's API answered their creation, ordered by id. */
  let written: WrittenLocation[];

  beforeAll(async () => {
    receiver = await startReceiver();
    registry = new ClientRegistry(`e2e rsp-journey ${run}`);
    const [operatorClient, { registered }] = await Promise.all([
      registry.operator(),
      registry.registration('RSP', [SCOPES.locationsRead], receiver.url),
    ]);
    if (registered.webhookSecret === undefined) throw new Error('the RSP was registered without a webhook secret');
    webhookSecret = registered.webhookSecret;
    rsp = new OAuthLibraryClient(baseUrl, registered.clientId, registered.clientSecret, SCOPES.locationsRead);
    const operator = new OperatorApi(operatorClient);

    [groupId, addressGroupId] = await Promise.all([
      operator.createLocationGroup(groupName),
      operator.createAddressGroup(addressGroupName),
    ]);
    const geography = { country: 'AU', region: 'TAS', locality, postalCode: '7000' };
    const street = { streetNumber: '40', streetName: 'Elizabeth', streetType: 'STREET' };
    const inputs: Record<string, unknown>[] = [
      // Two units of one MDU: one with coordinates, one without.
      {
        locationGroupId: groupId,
        geography,
        address: { ...street, subunitType: 'APT', subunitIdentifier: '1', addressGroupId },
        coordinates: { latitude: -42.8821, longitude: 147.3272 },
        fiberAccessDetails: { layer2AccessProtocol: 'GPON', serviceability: { status: 'ACTIVE' } },
      },
      {
        locationGroupId: groupId,
        geography,
        address: { ...street, subunitType: 'APT', subunitIdentifier: '2', addressGroupId },
        fiberAccessDetails: { serviceability: { status: 'ACTIVE', availableDate: '2024-06-30' } },
        customFields: { floor: 2, tags: ['mdu', 'north'] },
      },
      {
        locationGroupId: groupId,
        geography,
        coordinates: { latitude: -42.8805, longitude: 147.33 },
        fiberAccessDetails: { serviceability: { status: 'PLANNED' } },
        notes: `e2e rsp journey ${run}`,
      },
      // No serviceability: counted in totalCount and countByType, in no countByStatus key.
      {
        locationGroupId: groupId,
        geography,
        address: { streetNumber: '1', streetName: 'Macquarie', streetType: 'STREET' },
        coordinates: { latitude: -42.8833, longitude: 147.3288 },
      },
    ];
    written = [];
    for (const input of inputs) written.push(await operator.createLocation(input));
    written.sort((a, b) => compareIds(a.location.id, b.location.id));
    await awaitSubscription(rsp);
  }, 90_000);

  afterAll(async () => {
    await registry?.disableAll();
    await stopReceiver(receiver);
  });

  it('gets its token with openid-client: discovery at BASE_URL, then the client credentials grant', async () => {
    const configuration = await rsp.discovered();
    expect(configuration.serverMetadata()).toMatchObject({ issuer: origin, token_endpoint: `${origin}/oauth/token` });

    const accessToken = await rsp.accessToken();

    const grant = rsp.lastGrant!;
    expect({ tokenType: grant.token_type, scope: grant.scope, accessToken: grant.access_token }).toEqual({
      tokenType: 'bearer',
      scope: SCOPES.locationsRead,
      accessToken,
    });
    expect(grant.expiresIn()).toBeGreaterThan(60);
    const claims = decodeJwt(accessToken);
    expect({ iss: claims.iss, sub: claims.sub, client_id: claims['client_id'], scope: claims['scope'] }).toEqual({
      iss: origin,
      sub: rsp.clientId,
      client_id: rsp.clientId,
      scope: SCOPES.locationsRead,
    });
  });

  it('GET /locations/statistics counts exactly its locations, by group, address group, status, shape and locality', async () => {
    const counts = (query: Record<string, string>) => () => statisticsCounts(rsp, query);
    await awaitEqual(
      'statistics of the group',
      counts({ locationGroupId: groupId }),
      countsOf(
        4,
        { ACTIVE: 2, PLANNED: 1 },
        { addressOnly: 1, coordinatesOnly: 1, addressAndCoordinates: 2, grouped: 4 },
      ),
    );
    // Once the group's count is complete, the other filters must agree at once.
    expect(await counts({ addressGroupId })()).toEqual(
      countsOf(2, { ACTIVE: 2 }, { addressOnly: 1, addressAndCoordinates: 1, grouped: 2 }),
    );
    expect(await counts({ locationGroupId: groupId, status: 'ACTIVE,PLANNED' })()).toEqual(
      countsOf(
        3,
        { ACTIVE: 2, PLANNED: 1 },
        { addressOnly: 1, coordinatesOnly: 1, addressAndCoordinates: 1, grouped: 3 },
      ),
    );
    expect(await counts({ locationGroupId: groupId, hasCoordinates: 'false' })()).toEqual(
      countsOf(1, { ACTIVE: 1 }, { addressOnly: 1, grouped: 1 }),
    );
    expect(await counts({ locality, country: 'AU', region: 'TAS', postalCode: '7000' })()).toEqual(
      countsOf(
        4,
        { ACTIVE: 2, PLANNED: 1 },
        { addressOnly: 1, coordinatesOnly: 1, addressAndCoordinates: 2, grouped: 4 },
      ),
    );
  });

  it('GET /locations/{id} serves each location exactly as the operator wrote it, with its version as ETag', async () => {
    for (const { location, version } of written) {
      await awaitEqual(`GET /locations/${location.id}`, () => readLocation(rsp, location.id), { location, version });
    }
  });

  it('GET /locations lists exactly the locations of its group and of its address group, ordered by id', async () => {
    const list = (query: string) => async () => {
      const path = `/locations?${query}`;
      return conforming(`GET ${path}`, locationListSchema, await readOk(rsp, path));
    };
    const locations = (writes: WrittenLocation[]): Location[] => writes.map((write) => write.location);
    await awaitEqual('the locations of the group', list(`locationGroupId=${groupId}`), {
      locations: locations(written),
      pagination: { limit: 100, offset: 0, total: 4 },
    });
    expect(await list(`locationGroupId=${groupId}&limit=3&offset=2`)()).toEqual({
      locations: locations(written.slice(2)),
      pagination: { limit: 3, offset: 2, total: 4 },
    });
    // Paged by id: each page names the next one's `after` while more follow.
    const firstPage = locations(written.slice(0, 3));
    expect(await list(`locationGroupId=${groupId}&limit=3`)()).toEqual({
      locations: firstPage,
      pagination: { limit: 3, offset: 0, total: 4, next: firstPage[2]!.id },
    });
    expect(await list(`locationGroupId=${groupId}&limit=3&after=${firstPage[2]!.id}`)()).toEqual({
      locations: locations(written.slice(3)),
      pagination: { limit: 3, offset: 0, total: 4 },
    });
    const inMdu = written.filter((write) => write.location.address?.addressGroupId === addressGroupId);
    expect(inMdu).toHaveLength(2);
    expect(await list(`addressGroupId=${addressGroupId}&locationGroupId=${groupId}`)()).toEqual({
      locations: locations(inMdu),
      pagination: { limit: 100, offset: 0, total: 2 },
    });
  });

  it('reads its location group and address group by id and finds each, alone, in the lists filtered by name', async () => {
    const locationGroup = { id: groupId, name: groupName, type: 'OTHER' };
    const addressGroup = { id: addressGroupId, name: addressGroupName, type: 'MDU_COMPLEX' };
    await awaitEqual(
      `GET /location-groups/${groupId}`,
      () => readOk(rsp, `/location-groups/${groupId}`),
      locationGroup,
    );
    await awaitEqual(
      `GET /address-groups/${addressGroupId}`,
      () => readOk(rsp, `/address-groups/${addressGroupId}`),
      addressGroup,
    );

    // `name` matches any part of the name, case-insensitively: the run's id in upper case finds the test's group only.
    const byName = `name=${encodeURIComponent(`JOURNEY ${run.toUpperCase()}`)}`;
    const locationGroups = `/location-groups?${byName}&type=OTHER`;
    expect(conforming(`GET ${locationGroups}`, locationGroupListSchema, await readOk(rsp, locationGroups))).toEqual({
      locationGroups: [locationGroup],
      pagination: { limit: 100, offset: 0, total: 1 },
    });
    const addressGroups = `/address-groups?${byName}&limit=10`;
    expect(conforming(`GET ${addressGroups}`, addressGroupListSchema, await readOk(rsp, addressGroups))).toEqual({
      addressGroups: [addressGroup],
      pagination: { limit: 10, offset: 0, total: 1 },
    });
  });

  it('exports its group: 202, polled until COMPLETED, downloaded without a token, and notified by a signed webhook', async () => {
    // The file must hold every location as the RSP reads it, which is as the operator wrote it.
    for (const { location, version } of written) {
      await awaitEqual(`GET /locations/${location.id}`, () => readLocation(rsp, location.id), { location, version });
    }

    const accepted = await requestExport(rsp, { format: 'json', filters: { locationGroupId: groupId } });
    expect(accepted.status).toBe('PENDING');

    const status = await awaitCompleted(rsp, accepted.requestId);
    expect(status).toMatchObject({
      requestId: accepted.requestId,
      status: 'COMPLETED',
      format: 'json',
      filters: { locationGroupId: groupId },
      totalCount: 4,
    });
    expect(Date.parse(status.downloadExpiresAt)).toBeGreaterThan(Date.now());
    // The download is a plain GET of exportUrl: no Authorization header, no cookie, nothing but the signed URL.
    const file = await fetchExportFile(status);
    expect(file.locations).toEqual(written.map((write) => write.location));

    // Its own list holds this one export and nothing else.
    const listPath = '/locations/exports?limit=10';
    const list: ExportListReply = conforming(`GET ${listPath}`, exportListReplySchema, await readOk(rsp, listPath));
    expect({ ids: list.exports.map((item) => item.requestId), total: list.pagination.total }).toEqual({
      ids: [accepted.requestId],
      total: 1,
    });

    // The notification to the receiver: signed with the RSP's webhook secret, the spec's COMPLETED body.
    let receipt: Receipt | undefined;
    await waitFor(
      `the notification of export ${accepted.requestId}`,
      async () => {
        receipt = receiver.receipts.find(
          (r) => r.path === '/rsp/locations/exports/events' && r.body.includes(accepted.requestId),
        );
        return receipt !== undefined;
      },
      60_000,
    );
    expect(receipt!.headers['content-type']).toBe('application/json');
    const signed = new Webhook(webhookSecret).verify(receipt!.body, {
      'webhook-id': String(receipt!.headers['webhook-id']),
      'webhook-timestamp': String(receipt!.headers['webhook-timestamp']),
      'webhook-signature': String(receipt!.headers['webhook-signature']),
    });
    const notification = validate(exportNotificationSchema, signed);
    if (!notification.ok) throw new Error(`not an export notification: ${JSON.stringify(notification.issues)}`);
    expect(notification.value).toEqual({
      requestId: accepted.requestId,
      status: 'COMPLETED',
      exportUrl: expect.any(String) as unknown,
      downloadExpiresAt: expect.any(String) as unknown,
      exportTimestamp: status.exportTimestamp,
      totalCount: 4,
    });
    // The notification's link downloads the same file.
    const { exportUrl } = notification.value as Extract<ExportNotification, { status: 'COMPLETED' }>;
    expect((await fetchExportFile({ ...status, exportUrl })).locations).toEqual(file.locations);
  }, 120_000);
});
