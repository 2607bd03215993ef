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

  it('given a key that is not 32 bytes, when constructed, then it refuses', () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow();
  });
});
