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
    expect(() => digestEntryHash(ID, -1)).toThrow(new RangeError('version must be a non-negative integer, got -1'));
  });

  it('given version 0, when hashed, then it is a hash like any other (the smallest non-negative integer)', () => {
    expect(typeof digestEntryHash(ID, 0)).toBe('bigint');
    expect(digestEntryHash(ID, 0)).not.toBe(digestEntryHash(ID, 1));
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
    expect(() => parseDigestHash('e197')).toThrow(new RangeError('a digest hash is 16 hex digits, got "e197"'));
    expect(() => parseDigestHash('g197eec53a39bd6e')).toThrow(RangeError);
    // 16 hex digits with more before or after are not a hash either.
    expect(() => parseDigestHash('0e197eec53a39bd6e')).toThrow(RangeError);
    expect(() => parseDigestHash('e197eec53a39bd6e0')).toThrow(RangeError);
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

  it('given entries in any order, when the tree is computed, then its children are ordered by prefix', () => {
    expect(digestTree([...entries].reverse(), '', 2).children.map((child) => child.prefix)).toEqual(['d4', 'fd']);
    // Forty ids whose buckets come in no order: the children still come sorted.
    const many = Array.from({ length: 40 }, (_, n) => ({
      id: `${ID.slice(0, 24)}${String(n).padStart(12, '0')}`,
      version: 1,
    }));
    const prefixes = digestTree(many, '', 1).children.map((child) => child.prefix);
    expect(prefixes.length).toBeGreaterThan(8);
    expect(prefixes).toEqual([...prefixes].sort());
    expect(many.map((entry) => digestBucket(entry.id)[0])).not.toEqual(
      many.map((entry) => digestBucket(entry.id)[0]).sort(),
    );
  });

  it('given no prefix and no depth, when the tree is computed, then it is the root with its 16-way children', () => {
    expect(digestTree(entries)).toEqual({
      prefix: '',
      count: 2,
      hash: '5642ef8c25975e31',
      children: [
        { prefix: 'd', count: 1, hash: 'e197eec53a39bd6e' },
        { prefix: 'f', count: 1, hash: 'b7d501491faee35f' },
      ],
    });
  });

  it('given an upper-case prefix, when the tree is computed, then it holds only the resources under it', () => {
    expect(digestTree(entries, 'D4', 1)).toEqual({
      prefix: 'd4',
      count: 1,
      hash: 'e197eec53a39bd6e',
      children: [{ prefix: 'd4b', count: 1, hash: 'e197eec53a39bd6e' }],
    });
  });

  it('given prefix and depth past 8 hex digits, when the tree is computed, then it is refused; 8 is allowed', () => {
    expect(() => digestTree(entries, 'd4bd973', 2)).toThrow(new RangeError('prefix length + depth must be at most 8'));
    expect(digestTree(entries, 'd4bd973', 1).children).toEqual([
      { prefix: 'd4bd973b', count: 1, hash: 'e197eec53a39bd6e' },
    ]);
  });

  it('given any order of the same entries, when hashed, then the node is the same (XOR is order-free)', () => {
    expect(digestNodeHash([...entries].reverse())).toEqual(digestNodeHash(entries));
  });
});
