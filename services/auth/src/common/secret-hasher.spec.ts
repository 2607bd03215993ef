import { SecretHasher } from './secret-hasher';

describe('SecretHasher', () => {
  // Small parameters keep the unit test fast; the service uses the defaults.
  const hasher = new SecretHasher({ N: 1024, r: 8, p: 1, keyLength: 32 });

  it('given a hashed secret, when verified, then only that secret matches', async () => {
    const stored = await hasher.hash('s3cret');
    expect(stored).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(stored).not.toContain('s3cret');
    await expect(hasher.verify('s3cret', stored)).resolves.toBe(true);
    await expect(hasher.verify('s3cret!', stored)).resolves.toBe(false);
  });

  it('given the same secret hashed twice, when compared, then the salts make the hashes differ', async () => {
    expect(await hasher.hash('same')).not.toBe(await hasher.hash('same'));
  });

  it('given a hash made with other parameters, when verified, then its own parameters are used', async () => {
    const stored = await new SecretHasher({ N: 2048, r: 4, p: 1, keyLength: 16 }).hash('old');
    await expect(hasher.verify('old', stored)).resolves.toBe(true);
  });

  it('given a malformed stored hash, when verified, then nothing matches', async () => {
    await expect(hasher.verify('x', 'bcrypt$...')).resolves.toBe(false);
    await expect(hasher.verify('x', '')).resolves.toBe(false);
  });
});
