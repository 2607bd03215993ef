import { TimeOrderedUuidGenerator } from './id-generator';

describe('TimeOrderedUuidGenerator', () => {
  it('given many ids, when generated, then each is a unique version 7 RFC 9562 UUID', () => {
    const generator = new TimeOrderedUuidGenerator();
    const ids = Array.from({ length: 5_000 }, () => generator.next());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('given the clock moves on, when generated, then later ids sort after earlier ones and carry the time', () => {
    const generator = new TimeOrderedUuidGenerator();
    const now = jest.spyOn(Date, 'now');
    try {
      now.mockReturnValue(1_767_225_600_000);
      const earlier = generator.next();
      now.mockReturnValue(1_767_225_600_001);
      const later = generator.next();
      expect(earlier < later).toBe(true);
      expect(parseInt(earlier.replace(/-/g, '').slice(0, 12), 16)).toBe(1_767_225_600_000);
    } finally {
      now.mockRestore();
    }
  });
});
