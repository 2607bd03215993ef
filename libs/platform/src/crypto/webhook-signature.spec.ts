import { createHmac, randomBytes } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { signWebhook, type SignedMessage, webhookSecretKey } from './webhook-signature';

const secretOf = (key: Buffer): string => `whsec_${key.toString('base64')}`;

describe('webhookSecretKey', () => {
  it.each([24, 32, 64])('given a whsec_ secret of %i key bytes, when decoded, then it is those bytes', (length) => {
    const key = randomBytes(length);
    expect(webhookSecretKey(secretOf(key))).toStrictEqual(key);
  });

  it('given the Standard Webhooks example secret, when decoded, then it is its 24 key bytes', () => {
    expect(webhookSecretKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw').toString('hex')).toBe(
      '31f290f6bf06298aab4f08d43c3f082cf648a362da2da4b0',
    );
  });

  it.each([
    ['a secret without a prefix', randomBytes(32).toString('base64')],
    ['a secret with an upper-case prefix', `WHSEC_${randomBytes(32).toString('base64')}`],
    ['a secret with the prefix not at the start', `x${secretOf(randomBytes(32))}`],
    ['a secret with the prefix at the end', `${randomBytes(32).toString('base64')}whsec_`],
    ['a secret with another prefix', `whsk_${randomBytes(32).toString('base64')}`],
    ['an empty secret', ''],
  ])('given %s, when decoded, then it throws', (_case, secret) => {
    expect(() => webhookSecretKey(secret)).toThrow(new Error('a webhook secret starts with whsec_'));
  });

  it.each([
    ['with 23 key bytes', secretOf(randomBytes(23))],
    ['with 16 key bytes', secretOf(randomBytes(16))],
    ['that is only the prefix', 'whsec_'],
    ['with no base64 after the prefix', `whsec_${'!'.repeat(40)}`],
  ])('given a whsec_ secret %s, when decoded, then it throws', (_case, secret) => {
    expect(() => webhookSecretKey(secret)).toThrow(new Error('a webhook secret holds at least 24 key bytes'));
  });
});

describe('signWebhook', () => {
  const currentSecret = secretOf(randomBytes(32));
  const previousSecret = secretOf(randomBytes(32));

  function message(overrides: Partial<SignedMessage> = {}): SignedMessage & { body: string } {
    return {
      id: 'c7a4e1f0-5b8d-4e3a-9f21-6d0b2c8e4a17',
      timestampSeconds: Math.floor(Date.now() / 1000),
      body: JSON.stringify({ event: 'location.updated', data: { id: 'L-1', name: 'Zürich — 東京' } }),
      ...overrides,
    } as SignedMessage & { body: string };
  }

  function verify(secret: string, signed: SignedMessage, signature: string): unknown {
    return new Webhook(secret).verify(signed.body, {
      'webhook-id': signed.id,
      'webhook-timestamp': String(signed.timestampSeconds),
      'webhook-signature': signature,
    });
  }

  it('given the Standard Webhooks example, when signed, then it is the published signature', () => {
    const signature = signWebhook(
      { id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestampSeconds: 1_614_265_330, body: '{"test": 2432232314}' },
      ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    );
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('given a message, when signed, then it is the base64 HMAC-SHA256 of "id.timestamp.body" with the key bytes', () => {
    const key = randomBytes(32);
    const signed = message({ timestampSeconds: 1_700_000_000, body: '{"a":"ä"}' });
    const expected = createHmac('sha256', key).update(`${signed.id}.1700000000.{"a":"ä"}`, 'utf8').digest('base64');
    expect(signWebhook(signed, [secretOf(key)])).toBe(`v1,${expected}`);
  });

  it('given one secret, when signed, then standardwebhooks verifies the signature with it', () => {
    const signed = message();
    const signature = signWebhook(signed, [currentSecret]);
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verify(currentSecret, signed, signature)).toStrictEqual(JSON.parse(signed.body));
  });

  it('given the body as bytes, when signed, then the signature is that of the same text', () => {
    const signed = message();
    expect(signWebhook({ ...signed, body: Buffer.from(signed.body) }, [currentSecret])).toBe(
      signWebhook(signed, [currentSecret]),
    );
  });

  it('given two secrets, when signed, then there is one v1 signature per secret, in order, separated by a space', () => {
    const signed = message();
    const signature = signWebhook(signed, [currentSecret, previousSecret]);
    expect(signature).toBe(`${signWebhook(signed, [currentSecret])} ${signWebhook(signed, [previousSecret])}`);
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('given two secrets, when signed, then standardwebhooks verifies the header with either secret', () => {
    const signed = message();
    const signature = signWebhook(signed, [currentSecret, previousSecret]);
    expect(verify(currentSecret, signed, signature)).toStrictEqual(JSON.parse(signed.body));
    expect(verify(previousSecret, signed, signature)).toStrictEqual(JSON.parse(signed.body));
  });

  it('given a signature, when verified with a secret that did not sign, then standardwebhooks rejects it', () => {
    const signed = message();
    const signature = signWebhook(signed, [currentSecret, previousSecret]);
    expect(() => verify(secretOf(randomBytes(32)), signed, signature)).toThrow(WebhookVerificationError);
  });

  it.each([
    ['id', { id: 'another-id' }],
    ['timestamp', { timestampSeconds: Math.floor(Date.now() / 1000) - 1 }],
    ['body', { body: '{"event":"location.deleted"}' }],
  ])('given a signature, when verified with another %s, then standardwebhooks rejects it', (_part, change) => {
    const signed = message();
    const signature = signWebhook(signed, [currentSecret]);
    expect(() => verify(currentSecret, { ...signed, ...change }, signature)).toThrow(WebhookVerificationError);
  });

  it('given the same message and secret, when signed twice, then the signatures are equal', () => {
    const signed = message();
    expect(signWebhook(signed, [currentSecret])).toBe(signWebhook({ ...signed }, [currentSecret]));
  });

  it('given an empty body, when signed, then the signature covers "id.timestamp."', () => {
    const key = randomBytes(24);
    const expected = createHmac('sha256', key).update('id-1.1700000000.').digest('base64');
    expect(signWebhook({ id: 'id-1', timestampSeconds: 1_700_000_000, body: '' }, [secretOf(key)])).toBe(
      `v1,${expected}`,
    );
  });

  it('given no secret, when signed, then it throws', () => {
    expect(() => signWebhook(message(), [])).toThrow(new Error('at least one secret signs a webhook'));
  });

  it.each([
    ['without whsec_', [randomBytes(32).toString('base64')], 'a webhook secret starts with whsec_'],
    ['of 23 key bytes', [secretOf(randomBytes(23))], 'a webhook secret holds at least 24 key bytes'],
    ['of 23 key bytes after a good one', [currentSecret, secretOf(randomBytes(23))], 'at least 24 key bytes'],
    ['without whsec_ before a good one', [randomBytes(32).toString('base64'), currentSecret], 'starts with whsec_'],
  ])('given a secret %s, when signed, then it throws', (_case, secrets, error) => {
    expect(() => signWebhook(message(), secrets)).toThrow(error);
  });
});
