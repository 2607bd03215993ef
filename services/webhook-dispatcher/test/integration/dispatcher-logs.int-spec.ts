import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { aNewLocation, freePort, publish, REPO_ROOT, spawnTs, type TsProcess, waitFor } from '@lx/testing';
import {
  aWebhookSecret,
  type DispatcherWorld,
  isAbout,
  prepareDispatcherWorld,
  type Receiver,
  receiptsOf,
  startReceiver,
} from '../support/dispatcher-harness';

const MAIN = join(REPO_ROOT, 'services/webhook-dispatcher/src/main.ts');

/**
 * The dispatcher opens every RSP's webhook secret to sign with it, so no secret may reach its logs (only the one-time
 * reveal by auth ever shows one). Run as its own process at log level trace, through what logs the most around a
 * secret: a registration, a rotation (both secrets sign during the grace period), a 401 (the credentials warning that
 * names the client) and the retried delivery.
 */
describe('webhook dispatcher logs', () => {
  let world: DispatcherWorld;
  let replica: TsProcess | undefined;
  let receiver: Receiver | undefined;

  beforeAll(async () => {
    world = await prepareDispatcherWorld({ LOG_LEVEL: 'trace', WEBHOOK_RETRY_SCHEDULE: '1s' });
  }, 90_000);

  afterAll(async () => {
    replica?.process.kill('SIGKILL');
    await replica?.exited;
    await receiver?.close();
    await world?.close();
  });

  it('hold no webhook secret at log level trace, while they name the client', async () => {
    const port = await freePort();
    replica = spawnTs(MAIN, { ...world.env, HTTP_HOST: '127.0.0.1', HTTP_PORT: String(port) });
    const running = replica;
    const fail = (error: Error): never => {
      throw new Error(`${error.message}\n${running.output()}`);
    };
    await waitFor(
      'a dispatcher ready',
      async () => {
        return (await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200;
      },
      90_000,
    ).catch(fail);

    const location = aNewLocation();
    // The first attempt about this test's location is refused as unauthorized, the retry accepted; other test files'
    // events, which arrive too, are accepted.
    receiver = await startReceiver((request, attempt) =>
      isAbout(request, location.id) && attempt === 0 ? { status: 401 } : { status: 200 },
    );
    const clientId = randomUUID();
    const secrets = [aWebhookSecret(), aWebhookSecret()];
    await world.publishClient('CLIENT_REGISTERED', { clientId, webhookUrl: receiver.url, secret: secrets[0] }, 1);
    await world.waitForSubscription(clientId, 1);
    await world.publishClient('CLIENT_SECRET_ROTATED', { clientId, webhookUrl: receiver.url, secret: secrets[1] }, 2);
    await world.waitForSubscription(clientId, 2);

    const { id: eventId } = await publish(world.bus, 'LOCATION_CREATED', location, 1);
    await waitFor('the delivery after the 401', async () => {
      const [delivery] = (await world.deliveries(eventId)).filter((row) => row.client_id === clientId);
      return delivery?.status === 'DELIVERED';
    }).catch(fail);
    const receipts = receiptsOf(receiver, eventId);
    expect(receipts.map((request) => String(request.headers['webhook-signature']).split(' ').length)).toEqual([2, 2]);

    const logs = running.output();
    expect(logs).toContain('"service":"webhook-dispatcher"');
    expect(logs).toMatch(new RegExp(`answered 401[^\\n]*${clientId}|${clientId}[^\\n]*answered 401`));
    for (const secret of secrets) {
      // The whsec_ value and its key material alone (base64), in the two forms a log line could hold them.
      const key = secret.slice('whsec_'.length);
      for (const form of [secret, key, Buffer.from(key, 'base64').toString('hex')]) expect(logs).not.toContain(form);
    }
  }, 180_000);
});
