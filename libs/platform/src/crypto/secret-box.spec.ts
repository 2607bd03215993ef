import { randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('given a sealed secret, when opened with the same context, then it is the secret', () => {
    const sealed = box.seal('whsec_abc', 'webhook-secret:1');
    expect(sealed.toString('utf8')).not.toContain('whsec_abc');
    expect(box.open(sealed, 'webhook-secret:1').toString('utf8')).toBe('whsec_abc');
  });

  it('given the same secret sealed twice, when compared, then the ciphertexts differ (fresh IV)', () => {
    expect(box.seal('x', 'c').equals(box.seal('x', 'c'))).toBe(false);
  });

  it('given a sealed secret, when opened in another context, with another key or altered, then it fails', () => {
    const sealed = box.seal('whsec_abc', 'webhook-secret:1');
    expect(() => box.open(sealed, 'webhook-secret:2')).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'webhook-secret:1')).toThrow();
    const altered = Buffer.from(sealed);
    altered[altered.length - 1] = altered[altered.length - 1]! ^ 1;
    expect(() => box.open(altered, 'webhook-secret:1')).toThrow();
    expect(() => box.open(Buffer.from('short'), 'webhook-secret:1')).toThrow('unknown layout');
  });

  it('given an empty secret, when sealed, then it is the 29 bytes of version, IV and tag alone and opens again', () => {
    const sealed = box.seal('', 'webhook-secret:1');
    expect(sealed).toHaveLength(29);
    expect(sealed[0]).toBe(1);
    expect(box.open(sealed, 'webhook-secret:1')).toEqual(Buffer.alloc(0));
  });

  it.each([0, 1, 5, 17, 28])(
    'given a value of version 1 that is only %i bytes long, when opened, then its layout is refused',
    (length) => {
      const tooShort = Buffer.concat([Buffer.of(1), randomBytes(length)]).subarray(0, length);
      expect(() => box.open(tooShort, 'webhook-secret:1')).toThrow(new Error('sealed value has an unknown layout'));
    },
  );

  it('given a context with characters beyond ASCII, when sealed and opened, then it authenticates the UTF-8 bytes', () => {
    const sealed = box.seal('whsec_abc', 'webhook-secret:zoë');
    expect(box.open(sealed, 'webhook-secret:zoë').toString('utf8')).toBe('whsec_abc');
    expect(() => box.open(sealed, 'webhook-secret:zoe')).toThrow();
  });

  it.each([0, 16, 31, 33])('given a key of %i bytes, when constructed, then it refuses', (length) => {
    expect(() => new SecretBox(randomBytes(length))).toThrow(new Error('SecretBox needs a 32-byte key'));
  });
});
