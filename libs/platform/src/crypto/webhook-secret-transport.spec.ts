import { randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';
import { WebhookSecretTransport, webhookSecretTransportContext } from './webhook-secret-transport';

describe('WebhookSecretTransport', () => {
  const key = randomBytes(32);
  const transport = new WebhookSecretTransport(key);
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const binding = { clientId: '3f6c2a9e-8d1b-4c1e-9a57-0b4b6a1d2c3e', version: 3 };

  it('given a sealed secret, when opened with the same key, client and version, then it is the secret', () => {
    const sealed = transport.seal(secret, binding);
    expect(sealed).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(sealed, 'base64').toString('base64')).toBe(sealed);
    expect(new WebhookSecretTransport(Buffer.from(key)).open(sealed, binding)).toBe(secret);
  });

  it('given a sealed secret, when looked at, then no form of the secret shows', () => {
    const sealed = transport.seal(secret, binding);
    const bytes = Buffer.from(sealed, 'base64');
    for (const form of [
      secret,
      secret.slice('whsec_'.length),
      Buffer.from(secret).toString('base64'),
      Buffer.from(secret).toString('hex'),
    ]) {
      expect(sealed).not.toContain(form);
      expect(bytes.includes(Buffer.from(form))).toBe(false);
    }
    expect(bytes.includes(Buffer.from(secret.slice('whsec_'.length), 'base64'))).toBe(false);
  });

  it('given the same secret sealed twice, when compared, then the values differ (fresh IV)', () => {
    expect(transport.seal(secret, binding)).not.toBe(transport.seal(secret, binding));
  });

  it('given a sealed secret, when opened as another client, then it fails', () => {
    const sealed = transport.seal(secret, binding);
    expect(() => transport.open(sealed, { ...binding, clientId: '0b8f3a55-3f5e-4c9a-8d61-2a9f6f1c0e77' })).toThrow();
  });

  it.each([2, 4, 30])('given a sealed secret of version 3, when opened as version %i, then it fails', (version) => {
    const sealed = transport.seal(secret, binding);
    expect(() => transport.open(sealed, { ...binding, version })).toThrow();
  });

  it('given a sealed secret, when opened with another key, then it fails', () => {
    const sealed = transport.seal(secret, binding);
    expect(() => new WebhookSecretTransport(randomBytes(32)).open(sealed, binding)).toThrow();
  });

  it('given a sealed secret, when any byte is flipped, then it fails', () => {
    const bytes = Buffer.from(transport.seal(secret, binding), 'base64');
    for (let index = 0; index < bytes.length; index += 1) {
      const tampered = Buffer.from(bytes);
      tampered[index] = tampered[index]! ^ 0x01;
      expect(() => transport.open(tampered.toString('base64'), binding)).toThrow();
    }
  });

  it('given a sealed secret, when truncated, extended or not canonical base64, then it fails', () => {
    const sealed = transport.seal(secret, binding);
    const bytes = Buffer.from(sealed, 'base64');
    expect(() => transport.open(bytes.subarray(0, bytes.length - 1).toString('base64'), binding)).toThrow();
    expect(() => transport.open(Buffer.concat([bytes, Buffer.of(0)]).toString('base64'), binding)).toThrow();
    expect(() => transport.open(`${sealed}!`, binding)).toThrow('not base64');
    expect(() => transport.open(` ${sealed}`, binding)).toThrow('not base64');
    expect(() => transport.open(Buffer.from(sealed, 'base64').toString('base64url'), binding)).toThrow();
    expect(() => transport.open('', binding)).toThrow('not base64');
  });

  // The sealed value is 29 + secret-length bytes, so secrets of 1, 2 and 3 characters give base64 with no padding,
  // '==' and '=' respectively.
  it.each([
    ['x', ''],
    ['xy', '=='],
    ['xyz', '='],
  ])(
    'given the secret %p, when sealed and opened, then its canonical base64 (padding %p) is accepted',
    (short, padding) => {
      const sealed = transport.seal(short, binding);
      expect(sealed.replace(/^[A-Za-z0-9+/]*/, '')).toBe(padding);
      expect(transport.open(sealed, binding)).toBe(short);
    },
  );

  it.each(['xy', 'xyz'])(
    'given the sealed secret %p without its padding, when opened, then it is refused as not canonical base64',
    (short) => {
      const sealed = transport.seal(short, binding);
      const unpadded = sealed.replace(/=+$/, '');
      // Node would decode it to the very same bytes: only the canonical check refuses it.
      expect(Buffer.from(unpadded, 'base64')).toEqual(Buffer.from(sealed, 'base64'));
      expect(() => transport.open(unpadded, binding)).toThrow(new Error('sealed webhook secret is not base64'));
    },
  );

  it('given a value sealed at rest (other context), when opened as transport, then it fails', () => {
    const atRest = new SecretBox(key).seal(secret, `webhook-secret:${binding.clientId}`).toString('base64');
    expect(() => transport.open(atRest, binding)).toThrow();
  });

  it('given a version that is not a positive integer, when sealing, then it refuses', () => {
    for (const version of [0, -1, 1.5, Number.NaN]) {
      expect(() => transport.seal(secret, { ...binding, version })).toThrow('positive integer');
    }
  });

  it('given version 1, the first of a client, when turned into the context, then it is accepted', () => {
    expect(webhookSecretTransportContext({ ...binding, version: 1 })).toBe(
      `client-event:webhook-secret:${binding.clientId}:1`,
    );
  });

  it('given a binding, when turned into the context, then client id and version are in it', () => {
    expect(webhookSecretTransportContext(binding)).toBe(`client-event:webhook-secret:${binding.clientId}:3`);
  });

  it('given a key that is not 32 bytes, when constructed, then it refuses', () => {
    expect(() => new WebhookSecretTransport(randomBytes(16))).toThrow();
  });
});
