import { DigestDelta } from './digest-delta';

describe('DigestDelta', () => {
  it('given adds and removes, when its changes are read, then each node holds the net count and XOR, by node', () => {
    const delta = new DigestDelta();
    const nodes = delta.of('locations');
    nodes.add({ id: 'a', node: 7, digest_hash: '5' });
    nodes.add({ id: 'b', node: 3, digest_hash: '-1' });
    nodes.remove({ id: 'c', node: 7, digest_hash: '3' });
    expect(delta.changes()).toEqual([
      [
        'locations',
        [
          { node: 3, count: 1, hash: -1n },
          { node: 7, count: 0, hash: 6n },
        ],
      ],
    ]);
  });

  it('given a version replaced by the same entry, when its changes are read, then the node is left out', () => {
    const delta = new DigestDelta();
    delta.of('addressGroups').remove({ id: 'a', node: 1, digest_hash: '42' });
    delta.of('addressGroups').add({ id: 'a', node: 1, digest_hash: '42' });
    expect(delta.changes()).toEqual([['addressGroups', []]]);
  });
});
