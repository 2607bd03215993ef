import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { type ExportNotification, type Location, validate, exportNotificationSchema } from '@lx/contracts';
import { waitFor } from '@lx/testing';
import {
  type ApiClient,
  awaitLocationGroup,
  awaitReadSide,
  awaitSubscription,
  ClientRegistry,
  describeReply,
  OperatorApi,
} from './support/api';
import { type CompletedExport, fetchExportFile, requestExport } from './support/exports';
import { type Receipt, startReceiver, stopReceiver } from './support/receiver';

/** The body of a receipt after verifying its Standard Webhooks signature with the RSP's secret (throws when wrong). */
function verified(secret: string, receipt: Receipt): unknown {
  return new Webhook(secret).verify(receipt.body, {
    'webhook-id': String(receipt.headers['webhook-id']),
    'webhook-timestamp': String(receipt.headers['webhook-timestamp']),
    'webhook-signature': String(receipt.headers['webhook-signature']),
  });
}

/**
 * Webhooks end to end through the ingress: an RSP registered with a webhook URL receives a signed notification of
 * its export and signed location and group events for the operator's writes, verified with the npm standardwebhooks
 * package as an RSP would.
 */
describe('webhooks through the ingress', () => {
  let registry: ClientRegistry;
  let operator: OperatorApi;
  let rsp: ApiClient;
  let secret: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    registry = new ClientRegistry(`e2e webhooks ${randomUUID().slice(0, 8)}`);
    operator = new OperatorApi(await registry.operator());
    ({ client: rsp, webhookSecret: secret } = await registry.rspWithWebhook(receiver.url));
    await awaitSubscription(rsp);
  }, 90_000);

  afterAll(async () => {
    await registry?.disableAll();
    await stopReceiver(receiver);
  });

  it('notifies the RSP of its COMPLETED export, signed, with a link that downloads the file', async () => {
    const groupId = await operator.createLocationGroup(`e2e webhooks ${randomUUID().slice(0, 8)}`);
    const written = await operator.createLocation({
      locationGroupId: groupId,
      geography: { country: 'AU', region: 'VIC', locality: 'Geelong', postalCode: '3220' },
      coordinates: { latitude: -38.1499, longitude: 144.3617 },
    });
    await awaitLocationGroup(rsp, groupId);
    await awaitReadSide(rsp, written.location.id, written.version);
    const { requestId } = await requestExport(rsp, { format: 'json', filters: { locationGroupId: groupId } });

    let notification: Receipt | undefined;
    await waitFor(
      `the notification of export ${requestId}`,
      async () => {
        notification = receiver.receipts.find(
          (receipt) => receipt.path === '/rsp/locations/exports/events' && receipt.body.includes(requestId),
        );
        return notification !== undefined;
      },
      120_000,
    );
    expect(notification!.headers['content-type']).toBe('application/json');
    const body = validate(exportNotificationSchema, verified(secret, notification!));
    if (!body.ok) throw new Error(`not an export notification: ${JSON.stringify(body.issues)}`);
    const completed = body.value as Extract<ExportNotification, { status: 'COMPLETED' }>;
    expect(completed).toMatchObject({ requestId, status: 'COMPLETED', totalCount: 1 });

    const status = await rsp.get<CompletedExport>(`/locations/exports/${requestId}`);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      status: 'COMPLETED',
      exportTimestamp: completed.exportTimestamp,
      totalCount: 1,
    });
    const file = await fetchExportFile({ ...status.body, exportUrl: completed.exportUrl });
    expect(file.locations.map((location) => location.id)).toEqual([written.location.id]);
  }, 180_000);

  it('sends the operator write as a signed location event whose data equals GET /locations/{id}', async () => {
    const written = await operator.createLocation({
      geography: { country: 'AU', region: 'VIC', locality: 'Ballarat', postalCode: '3350' },
      address: { streetNumber: '5', streetName: 'Sturt', streetType: 'STREET' },
      fiberAccessDetails: { serviceability: { status: 'PLANNED' } },
    });
    const updated = await operator.patchLocation(written.location.id, {
      fiberAccessDetails: { serviceability: { status: 'CONSTRUCTION' } },
    });

    const eventsOf = () =>
      receiver.receipts.filter(
        (receipt) => receipt.path === '/rsp/locations/events' && receipt.body.includes(written.location.id),
      );
    await waitFor('both location events', async () => eventsOf().length >= 2, 60_000);
    const served = await awaitReadSide(rsp, written.location.id, updated.version);
    const events = eventsOf().map((receipt) => ({
      receipt,
      event: (
        verified(secret, receipt) as { event: { id: string; type: string; data: Location; modifiedFields?: unknown } }
      ).event,
    }));
    const created = events.find(({ event }) => event.type === 'LOCATION_CREATED');
    const changed = events.find(({ event }) => event.type === 'LOCATION_UPDATED');
    expect(created?.event.data).toEqual(written.location);
    expect(changed?.event.data).toEqual(served);
    expect(changed?.event.modifiedFields).toEqual({
      fiberAccessDetails: { serviceability: { status: 'CONSTRUCTION' } },
    });
    for (const { receipt, event } of events) {
      expect(receipt.headers['x-event-id']).toBe(event.id);
      expect(receipt.headers['x-event-type']).toBe(event.type);
    }
    // Each event carries the location's version, in the body and in X-Event-Sequence.
    expect(
      events.map(({ receipt }) => [receipt.headers['x-event-sequence'], JSON.parse(receipt.body).event.version]),
    ).toEqual(
      expect.arrayContaining([
        ['1', 1],
        [String(updated.version), updated.version],
      ]),
    );
    // The RSP sees the delivery in its own list (DELIVERED once the dispatcher recorded the 200).
    await waitFor('the delivery of the update to show as DELIVERED', async () => {
      const reply = await rsp.get<{ deliveries: { eventId: string; status: string }[] }>('/webhooks/deliveries');
      if (reply.status !== 200) throw new Error(describeReply('GET /webhooks/deliveries', reply));
      return reply.body.deliveries.some((d) => d.eventId === changed!.event.id && d.status === 'DELIVERED');
    });
  }, 120_000);

  it('sends the operator group writes as signed group events, each with the group and its version, the deletion with its last state', async () => {
    const name = `e2e group events ${randomUUID().slice(0, 8)}`;
    const groupId = await operator.createLocationGroup(name);
    const renamed = await operator.patchGroup('location-groups', groupId, { name: `${name} renamed` });
    await operator.deleteGroup('location-groups', groupId);
    const mduId = await operator.createAddressGroup(`${name} MDU`);

    const eventsOf = (id: string) =>
      receiver.receipts
        .filter((receipt) => receipt.path === '/rsp/locations/events' && receipt.body.includes(id))
        .map((receipt) => ({
          receipt,
          event: (verified(secret, receipt) as { event: { id: string; type: string; data: unknown; version: number } })
            .event,
        }));
    await waitFor('the three location group events and the address group event', async () => {
      return eventsOf(groupId).length >= 3 && eventsOf(mduId).length >= 1;
    });
    const groupEvents = eventsOf(groupId).sort((a, b) => a.event.version - b.event.version);
    expect(groupEvents.map(({ event }) => [event.type, event.version])).toEqual([
      ['LOCATION_GROUP_CREATED', 1],
      ['LOCATION_GROUP_UPDATED', 2],
      ['LOCATION_GROUP_DELETED', 3],
    ]);
    expect(groupEvents[0]!.event.data).toEqual({ id: groupId, name, type: 'OTHER' });
    expect(groupEvents[1]!.event.data).toEqual(renamed.group);
    expect(groupEvents[2]!.event.data).toEqual(renamed.group);
    for (const { receipt, event } of groupEvents) {
      expect(receipt.headers['x-event-type']).toBe(event.type);
      expect(receipt.headers['x-event-sequence']).toBe(String(event.version));
    }
    expect(eventsOf(mduId).map(({ event }) => [event.type, event.version, event.data])).toEqual([
      ['ADDRESS_GROUP_CREATED', 1, { id: mduId, name: `${name} MDU`, type: 'MDU_COMPLEX' }],
    ]);
  }, 120_000);

  it('lets the RSP discard a stale event by its version: a redelivered creation does not undo a later change', async () => {
    const written = await operator.createLocation({
      geography: { country: 'AU', region: 'VIC', locality: 'Bendigo', postalCode: '3550' },
      address: { streetNumber: '9', streetName: 'Pall Mall', streetType: 'STREET' },
      fiberAccessDetails: { serviceability: { status: 'PLANNED' } },
    });
    const updated = await operator.patchLocation(written.location.id, {
      fiberAccessDetails: { serviceability: { status: 'CONSTRUCTION' } },
    });
    await waitFor(
      'the mirror at the update',
      async () => receiver.mirror.get(written.location.id)?.version === updated.version,
    );

    // The RSP asks for the creation again (recovering from a processing failure): it arrives after the update. It can
    // once the creation shows as DELIVERED (its endpoint's cursor passed it; until then it is PENDING, and 409).
    const creation = receiver.receipts.find(
      (receipt) => receipt.body.includes(written.location.id) && receipt.headers['x-event-type'] === 'LOCATION_CREATED',
    )!;
    let delivery: { id: string; eventId: string; status: string } | undefined;
    await waitFor('the creation to show as DELIVERED', async () => {
      const reply = await rsp.get<{ deliveries: { id: string; eventId: string; status: string }[] }>(
        '/webhooks/deliveries',
      );
      if (reply.status !== 200) throw new Error(describeReply('GET /webhooks/deliveries', reply));
      delivery = reply.body.deliveries.find((d) => d.eventId === creation.headers['x-event-id']);
      return delivery?.status === 'DELIVERED';
    });
    expect(delivery!.id).toBe(creation.headers['webhook-id']);
    const redelivered = await rsp.post(`/webhooks/deliveries/${delivery!.id}/redeliver`, {});
    expect(redelivered.status).toBe(202);

    await waitFor('the stale creation discarded', async () =>
      receiver.discarded.some((receipt) => receipt.headers['webhook-id'] === delivery!.id),
    );
    const served = await awaitReadSide(rsp, written.location.id, updated.version);
    expect(receiver.mirror.get(written.location.id)).toEqual({ version: updated.version, data: served });
  }, 120_000);
});
