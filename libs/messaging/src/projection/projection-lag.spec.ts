import { consumerLag } from './projection-lag';

describe('consumerLag', () => {
  const bounds = [
    { topic: 't', partition: 0, low: '0', high: '10' },
    { topic: 't', partition: 1, low: '5', high: '9' },
    { topic: 't', partition: 2, low: '0', high: '0' },
    { topic: 'u', partition: 0, low: '0', high: '7' },
  ];

  it("is the log's end less the stored next offset, per topic and partition", () => {
    expect(
      consumerLag(bounds, [
        { topic: 't', partition: 0, offset: '4' },
        { topic: 't', partition: 1, offset: '9' },
        { topic: 't', partition: 2, offset: '0' },
        { topic: 'u', partition: 0, offset: '6' },
      ]),
    ).toEqual([
      { topic: 't', partition: 0, lag: 6 },
      { topic: 't', partition: 1, lag: 0 },
      { topic: 't', partition: 2, lag: 0 },
      { topic: 'u', partition: 0, lag: 1 },
    ]);
  });

  it('counts a partition with no stored offset from the first message the log still holds', () => {
    expect(consumerLag(bounds, [])).toEqual([
      { topic: 't', partition: 0, lag: 10 },
      { topic: 't', partition: 1, lag: 4 },
      { topic: 't', partition: 2, lag: 0 },
      { topic: 'u', partition: 0, lag: 7 },
    ]);
  });

  it('never counts from before the log start, nor below zero', () => {
    expect(
      consumerLag([{ topic: 't', partition: 1, low: '5', high: '9' }], [{ topic: 't', partition: 1, offset: '2' }]),
    ).toEqual([{ topic: 't', partition: 1, lag: 4 }]);
    expect(
      consumerLag([{ topic: 't', partition: 1, low: '5', high: '9' }], [{ topic: 't', partition: 1, offset: '12' }]),
    ).toEqual([{ topic: 't', partition: 1, lag: 0 }]);
  });

  it('keeps offsets past 2^53 exact until the difference', () => {
    expect(
      consumerLag(
        [{ topic: 't', partition: 0, low: '0', high: '9007199254740999' }],
        [{ topic: 't', partition: 0, offset: '9007199254740990' }],
      ),
    ).toEqual([{ topic: 't', partition: 0, lag: 9 }]);
  });
});
