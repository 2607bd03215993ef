import { randomBytes, scrypt, type ScryptOptions, timingSafeEqual } from 'node:crypto';

interface ScryptParameters {
  N: number;
  r: number;
  p: number;
  keyLength: number;
}

/** Node's defaults (N = 2^14, r = 8: 16 MiB and tens of milliseconds per hash), 32-byte output. */
const DEFAULT_PARAMETERS: ScryptParameters = { N: 16_384, r: 8, p: 1, keyLength: 32 };
const SALT_BYTES = 16;

function derive(secret: string, salt: Buffer, { N, r, p, keyLength }: ScryptParameters): Promise<Buffer> {
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/**
 * Slow salted hashes of client secrets with scrypt. A stored hash names its parameters
 * (`scrypt$N$r$p$salt$hash`, base64 parts), so they can be raised later without invalidating existing secrets.
 */
export class SecretHasher {
  constructor(private readonly parameters: ScryptParameters = DEFAULT_PARAMETERS) {}

  async hash(secret: string): Promise<string> {
    const salt = randomBytes(SALT_BYTES);
    const key = await derive(secret, salt, this.parameters);
    const { N, r, p } = this.parameters;
    return ['scrypt', N, r, p, salt.toString('base64'), key.toString('base64')].join('$');
  }

  /** Compares in constant time; a malformed stored hash never matches. */
  async verify(secret: string, stored: string): Promise<boolean> {
    const [scheme, N, r, p, salt, expected] = stored.split('$');
    if (scheme !== 'scrypt' || !N || !r || !p || !salt || !expected) return false;
    const expectedKey = Buffer.from(expected, 'base64');
    const key = await derive(secret, Buffer.from(salt, 'base64'), {
      N: Number(N),
      r: Number(r),
      p: Number(p),
      keyLength: expectedKey.length,
    });
    return key.length === expectedKey.length && timingSafeEqual(key, expectedKey);
  }
}
