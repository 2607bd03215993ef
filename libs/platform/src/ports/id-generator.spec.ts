import { randomFillSync } from 'node:crypto';
import { TimeOrderedUuidGenerator } from './id-generator';

jest.mock('node:crypto', () => {
  const actual = jest.requireActual<typeof import('node:crypto')>('node:crypto');
  return { ...actual, randomFillSync: jest.fn(actual.randomFillSync) };
});

/** The next calls of the CSPRNG fill the buffer with the first byte given, then the next byte, and so on. */
function randomBytesOf(...bytes: number[]) {
  const fill = jest.mocked(randomFillSync);
  fill.mockClear();
  for (const byte of bytes) fill.mockImplementationOnce((buffer) => (buffer as Buffer).fill(byte));
  return fill;
}

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

  describe('random bits', () => {
    it.each([
      [0xff, '019b76da-a800-7fff-bfff-ffffffffffff'],
      [0x00, '019b76da-a800-7000-8000-000000000000'],
    ])(
      'given random bytes all %i, when generated, then all 74 random bits are theirs, only version and variant are set',
      (byte, id) => {
        randomBytesOf(byte);
        const now = jest.spyOn(Date, 'now').mockReturnValue(1_767_225_600_000);
        try {
          expect(new TimeOrderedUuidGenerator().next()).toBe(id);
        } finally {
          now.mockRestore();
        }
      },
    );

    it('given the 16 KiB pool, when 1,638 ids (10 random bytes each) are generated, then it was filled once; the next id refills it', () => {
      const fill = randomBytesOf(0x00, 0xff);
      const generator = new TimeOrderedUuidGenerator();
      const ids = Array.from({ length: 1_638 }, () => generator.next());
      expect(fill).toHaveBeenCalledTimes(1);
      expect(ids.at(-1)).toMatch(/-7000-8000-000000000000$/);
      expect(generator.next()).toMatch(/-7fff-bfff-ffffffffffff$/);
      expect(fill).toHaveBeenCalledTimes(2);
    });
  });
});
