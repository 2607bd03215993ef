import { digestEntriesReplySchema, digestNodeReplySchema } from './digest';

const common = {
  resource: 'locations',
  prefix: 'ab',
  count: 2,
  hash: '5642ef8c25975e31',
  position: { 'location.events.v1': { '0': '1234', '1': '99' } },
  computedAt: '2026-11-27T06:00:00.123Z',
};

describe('digestNodeReplySchema', () => {
  it('given a node reply, when parsed, then it is accepted', () => {
    const reply = { ...common, children: [{ prefix: 'ab0', count: 2, hash: '5642ef8c25975e31' }] };
    expect(digestNodeReplySchema.parse(reply)).toEqual(reply);
  });

  it('given an upper-case hash or a prefix longer than 8, when parsed, then it is refused', () => {
    expect(digestNodeReplySchema.safeParse({ ...common, hash: '5642EF8C25975E31', children: [] }).success).toBe(false);
    expect(digestNodeReplySchema.safeParse({ ...common, prefix: '012345678', children: [] }).success).toBe(false);
  });

  it('given a hash with more than its 16 hex digits, when parsed, then it is refused', () => {
    for (const hash of ['05642ef8c25975e31', '5642ef8c25975e310']) {
      expect(digestNodeReplySchema.safeParse({ ...common, hash, children: [] }).success).toBe(false);
    }
  });
});

describe('digestEntriesReplySchema', () => {
  it('given an entries reply, when parsed, then it is accepted', () => {
    const reply = { ...common, entries: [{ id: '0190f3c2-7a1b-7c3d-9e4f-5a6b7c8d9e0f', version: 3 }] };
    expect(digestEntriesReplySchema.parse(reply)).toEqual(reply);
  });

  it('given an offset that is not a decimal string, when parsed, then it is refused', () => {
    for (const offset of [12, '12a', 'a12']) {
      const reply = { ...common, position: { 'location.events.v1': { '0': offset } }, entries: [] };
      expect(digestEntriesReplySchema.safeParse(reply).success).toBe(false);
    }
  });
});
