import type { LookupAddress } from 'node:dns';
import { judgeAttempt } from '@lx/domain';
import { WebhookSender } from '../../src/delivery/sending/webhook-sender';
import { aSelfSignedCertificate, type Receiver, startReceiver } from '../support/dispatcher-harness';

/**
 * The sender against real HTTP and HTTPS receivers on loopback. Name resolution is the test's own where a test needs a
 * name to answer differently from one lookup to the next (DNS rebinding); nothing is ever sent off loopback: a refused
 * address is refused before a connection is opened.
 */
describe('webhook sender', () => {
  const receivers: Receiver[] = [];
  const senders: WebhookSender[] = [];

  afterEach(async () => {
    for (const sender of senders.splice(0)) sender.close();
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });

  /** `resolve`: the addresses a name resolves to, per lookup (the system resolver when not given). */
  function aSender(resolve?: (hostname: string) => string[]): WebhookSender {
    const sender = new WebhookSender({
      connectTimeoutMs: 2_000,
      responseTimeoutMs: 2_000,
      allowedAddressKinds: new Set(['loopback']),
      maxSocketsPerOrigin: 1,
      ...(resolve === undefined
        ? {}
        : {
            resolve: ((hostname: string, _options: unknown, callback: (e: null, a: LookupAddress[]) => void) => {
              const addresses = resolve(hostname).map((address) => ({
                address,
                family: address.includes(':') ? 6 : 4,
              }));
              process.nextTick(() => callback(null, addresses));
            }) as never,
          }),
    });
    senders.push(sender);
    return sender;
  }

  const aRequest = (url: string) => ({
    url: new URL(url),
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });

  it('fails a TLS handshake with a certificate no trusted authority signed as a TLS error, retried, sending nothing', async () => {
    const receiver = await startReceiver(undefined, { tls: aSelfSignedCertificate() });
    receivers.push(receiver);

    const response = await aSender().send(aRequest(receiver.url));

    expect(response.result).toEqual({ kind: 'failure', failure: 'tls' });
    expect(response.error).toMatch(/^DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate/);
    expect(judgeAttempt(response.result, Date.now())).toEqual({ type: 'retry', reason: 'tls' });
    expect(receiver.received).toHaveLength(0);
  });

  it('checks every new connection against the address it is made to, so a name that rebinds to a private address is refused', async () => {
    // Each request on a connection of its own, so each one resolves the name again.
    const receiver = await startReceiver(() => ({ status: 200, headers: { connection: 'close' } }));
    receivers.push(receiver);
    const answers = ['127.0.0.1', '10.0.0.1'];
    const lookups: string[] = [];
    const sender = aSender((hostname) => {
      lookups.push(hostname);
      return [answers[Math.min(lookups.length - 1, answers.length - 1)]!];
    });
    const url = receiver.url.replace('127.0.0.1', 'rebinding.lx-test');

    const first = await sender.send(aRequest(url));
    expect(first.result).toEqual({ kind: 'reply', status: 200 });

    const second = await sender.send(aRequest(url));
    expect(second.result).toEqual({ kind: 'failure', failure: 'address-not-allowed' });
    expect(second.error).toBe(
      'rebinding.lx-test resolves to 10.0.0.1, a private address that webhooks may not reach (WEBHOOK_ALLOWED_ADDRESS_KINDS)',
    );
    expect(judgeAttempt(second.result, Date.now())).toMatchObject({ type: 'failed', reason: 'address-not-allowed' });
    expect(lookups).toEqual(['rebinding.lx-test', 'rebinding.lx-test']);
    expect(receiver.received).toHaveLength(1);
  });

  it('refuses a name with any refused address among its answers, even when another one is allowed', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const sender = aSender(() => ['127.0.0.1', '169.254.169.254']);

    const response = await sender.send(aRequest(receiver.url.replace('127.0.0.1', 'two-answers.lx-test')));

    expect(response.result).toEqual({ kind: 'failure', failure: 'address-not-allowed' });
    expect(response.error).toMatch(/resolves to 169\.254\.169\.254, a link-local address/);
    expect(receiver.received).toHaveLength(0);
  });
});
