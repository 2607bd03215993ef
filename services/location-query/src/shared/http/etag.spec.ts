import { etagOf, ifNoneMatchMatches } from './etag';

describe('ifNoneMatchMatches', () => {
  const etag = etagOf(3);

  it.each([
    ['"3"', true],
    ['W/"3"', true],
    ['"1", "3"', true],
    ['*', true],
    ['"2"', false],
    ['"33"', false],
    ['3', false],
  ])('given If-None-Match %s and ETag "3", when compared, then matches is %s', (header, matches) => {
    expect(ifNoneMatchMatches(header, etag)).toBe(matches);
  });

  it('given no If-None-Match, when compared, then it does not match', () => {
    expect(ifNoneMatchMatches(undefined, etag)).toBe(false);
  });
});
