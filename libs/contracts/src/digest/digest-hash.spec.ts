import {
  DIGEST_HASH,
  digestBucket,
  digestEntryHash,
  digestNodeHash,
  digestNodeHolds,
  digestTree,
  formatDigestHash,
  parseDigestHash,
  xorHex,
} from './digest-hash';

// The worked example of docs/digest.md; the expected values come from Python's hashlib, not from this module.
const ID = '0190f3c2-7a1b-7c3d-9e4f-5a6b7c8d9e0f';
const OTHER = '0190f3c2-7a1b-7c3d-9e4f-5a6b7c8d9e10';

describe('digestBucket', () => {
  it('given an id, when bucketed, then it is the SHA-256 hex of its canonical text', () => {
    expect(digestBucket(ID)).toBe('d4bd973bcca12fb42b4d2f401b1dcd07fd31ca7729bd832096b9879f5d09610f');
  });

  it('given an id in upper case, when bucketed, then it lands where its lowercase text does', () => {
    expect(digestBucket(ID.toUpperCase())).toBe(digestBucket(ID));
  });
});

describe('digestEntryHash', () => {
  it.each([
    [1, 'df8863c2959981dd'],
    [2, '8f157ab547b22fb3'],
    [3, 'e197eec53a39bd6e'],
  ])('given version %d, when hashed, then it is the first 8 bytes of SHA-256 of "<id>:<version>"', (version, hex) => {
    expect(formatDigestHash(digestEntryHash(ID, version))).toBe(hex);
  });

  it('given an upper-case id, when hashed, then it hashes the canonical text', () => {
    expect(digestEntryHash(ID.toUpperCase(), 3)).toBe(digestEntryHash(ID, 3));
  });

  it('given a version that is not a non-negative integer, when hashed, then it is refused', () => {
    expect(() => digestEntryHash(ID, 1.5)).toThrow(RangeError);
    expect(() => digestEntryHash(ID, -1)).toThrow(RangeError);
  });
});

describe('formatDigestHash, parseDigestHash and xorHex', () => {
  it('given 0, when formatted, then it is the empty hash', () => {
    expect(formatDigestHash(0n)).toBe(DIGEST_HASH.emptyHash);
  });

  it('given a signed 64-bit value (as PostgreSQL bigint holds it), when formatted, then it is its unsigned bits', () => {
    expect(formatDigestHash(-1n)).toBe('ffffffffffffffff');
    expect(formatDigestHash(BigInt.asIntN(64, 0xe197eec53a39bd6en))).toBe('e197eec53a39bd6e');
  });

  it('given a hash, when parsed and formatted, then it is unchanged (either case in, lower case out)', () => {
    expect(formatDigestHash(parseDigestHash('E197EEC53A39BD6E'))).toBe('e197eec53a39bd6e');
  });

  it('given text that is not 16 hex digits, when parsed, then it is refused', () => {
    expect(() => parseDigestHash('e197')).toThrow(RangeError);
    expect(() => parseDigestHash('g197eec53a39bd6e')).toThrow(RangeError);
  });

  it('given two hashes, when XOR-ed, then it is their bitwise XOR and XOR-ing one again gives the other back', () => {
    expect(xorHex('e197eec53a39bd6e', 'b7d501491faee35f')).toBe('5642ef8c25975e31');
    expect(xorHex(xorHex('e197eec53a39bd6e', 'b7d501491faee35f'), 'b7d501491faee35f')).toBe('e197eec53a39bd6e');
  });
});

describe('digestNodeHash and digestTree', () => {
  const entries = [
    { id: ID, version: 3 },
    { id: OTHER, version: 1 },
  ];

  it('given two resources, when the root is hashed, then it counts both and XORs their entry hashes', () => {
    expect(digestNodeHash(entries)).toEqual({ prefix: '', count: 2, hash: '5642ef8c25975e31' });
  });

  it('given a prefix, when its node is hashed, then it holds only the resources whose bucket starts with it', () => {
    expect(digestNodeHolds('D4B', ID)).toBe(true);
    expect(digestNodeHash(entries, 'D4B')).toEqual({ prefix: 'd4b', count: 1, hash: 'e197eec53a39bd6e' });
    expect(digestNodeHash(entries, '0')).toEqual({ prefix: '0', count: 0, hash: DIGEST_HASH.emptyHash });
  });

  it('given a depth, when the tree is computed, then it lists the non-empty children that deep, by prefix', () => {
    expect(digestTree(entries, '', 2)).toEqual({
      prefix: '',
      count: 2,
      hash: '5642ef8c25975e31',
      children: [
        { prefix: 'd4', count: 1, hash: 'e197eec53a39bd6e' },
        { prefix: 'fd', count: 1, hash: 'b7d501491faee35f' },
      ],
    });
  });

  it('given prefix and depth past 8 hex digits, when the tree is computed, then it is refused', () => {
    expect(() => digestTree(entries, 'd4bd973', 2)).toThrow(RangeError);
  });

  it('given any order of the same entries, when hashed, then the node is the same (XOR is order-free)', () => {
    expect(digestNodeHash([...entries].reverse())).toEqual(digestNodeHash(entries));
  });
});
