import { contentDisposition } from './content-disposition';

describe('contentDisposition', () => {
  it('given an ASCII file name, when quoted, then both forms carry it as it is', () => {
    expect(contentDisposition('locations-2026-01-31.csv')).toBe(
      `attachment; filename="locations-2026-01-31.csv"; filename*=UTF-8''locations-2026-01-31.csv`,
    );
  });

  it('given quotes, a backslash, a line break and letters outside ASCII, when quoted, then the fallback replaces them and the UTF-8 form encodes them', () => {
    expect(contentDisposition('a"b\\c\r\nété.json')).toBe(
      `attachment; filename="a_b_c___t_.json"; filename*=UTF-8''a%22b%5Cc%0D%0A%C3%A9t%C3%A9.json`,
    );
  });
});
