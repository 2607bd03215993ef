import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encrypts secrets at rest with AES-256-GCM under the key from AUTH_ENCRYPTION_KEY. Layout of a sealed value:
 * version (1 byte) | IV (12) | tag (16) | ciphertext. The `context` (for example `webhook-secret:<clientId>`) is
 * authenticated as additional data, so a ciphertext copied into another row does not decrypt there.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key');
  }

  seal(plaintext: Buffer | string, context: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([Buffer.of(VERSION), iv, cipher.getAuthTag(), ciphertext]);
  }

  /** Throws when the value was not sealed under this key and context, or was altered. */
  open(sealed: Buffer, context: string): Buffer {
    if (sealed.length < 1 + IV_BYTES + TAG_BYTES || sealed[0] !== VERSION) {
      throw new Error('sealed value has an unknown layout');
    }
    const iv = sealed.subarray(1, 1 + IV_BYTES);
    const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
  }
}
