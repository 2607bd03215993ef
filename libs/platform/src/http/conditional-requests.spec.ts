import { assertIfMatch, etagOf, ifNoneMatchMatches } from './conditional-requests';

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
    ['"W/3"', false],
    [' * ', true],
  ])('given If-None-Match %s and ETag "3", when compared, then matches is %s', (header, matches) => {
    expect(ifNoneMatchMatches(header, etag)).toBe(matches);
  });

  it('given no If-None-Match, when compared, then it does not match', () => {
    expect(ifNoneMatchMatches(undefined, etag)).toBe(false);
  });
});

describe('assertIfMatch', () => {
  it('given no If-Match, when checked, then any version passes, even no resource', () => {
    expect(() => assertIfMatch(undefined, 3)).not.toThrow();
    expect(() => assertIfMatch(undefined, null)).not.toThrow();
  });

  it.each([
    ['"3"', 3],
    ['"1", "3"', 3],
    ['"12", "3", W/"456"', 3],
    ['*', 1],
  ])('given If-Match %s and version %d, when checked, then it passes', (ifMatch, version) => {
    expect(() => assertIfMatch(ifMatch, version)).not.toThrow();
  });

  it.each([
    ['"2"', 3],
    ['W/"3"', 3],
    ['*', null],
    ['"1"', null],
    ['"null"', null],
  ])('given If-Match %s and version %p, when checked, then PRECONDITION_FAILED', (ifMatch, version) => {
    expect(() => assertIfMatch(ifMatch, version)).toThrow(expect.objectContaining({ code: 'PRECONDITION_FAILED' }));
  });

  it.each(['3', '', ' ', '"3', '"3" "4"', '"3",', '**', 'W/3', 'w/"3"'])(
    'given the malformed If-Match %p, when checked, then INVALID_REQUEST naming the header, whatever the version',
    (ifMatch) => {
      for (const version of [3, null]) {
        expect(() => assertIfMatch(ifMatch, version)).toThrow(
          expect.objectContaining({
            code: 'INVALID_REQUEST',
            message: 'If-Match must be * or entity tags such as "3"',
            details: { header: 'If-Match' },
          }),
        );
      }
    },
  );

  it.each([' "3" ', '"1" ,"3"', 'W/"1", "3"', ' * '])(
    'given the well-formed If-Match %p, when checked, then it passes',
    (ifMatch) => {
      expect(() => assertIfMatch(ifMatch, 3)).not.toThrow();
    },
  );

  it('given a version, when tagged, then it is a quoted strong ETag', () => {
    expect(etagOf(7)).toBe('"7"');
  });
});
