import { ConflictError, ValidationFailedError } from '../errors/domain-error';
import { assertIdempotencyKey, assertSameRequest, canonicalJson, IDEMPOTENCY_WINDOW_MS } from './idempotency-key';

describe('Idempotency-Key', () => {
  it.each(['a', '!', '~', 'k'.repeat(255), 'order-2024-02-29/7f3e', '{"x":1}'])(
    'given the key %j, when checked, then it is accepted',
    (key) => {
      expect(() => assertIdempotencyKey(key)).not.toThrow();
    },
  );

  it.each(['', ' ', 'with space', 'k'.repeat(256), 'tab\tkey', 'ключ', '\u007f', 'line\nbreak'])(
    'given the key %j, when checked, then VALIDATION_ERROR names the header',
    (key) => {
      const error = (() => {
        try {
          assertIdempotencyKey(key);
        } catch (thrown) {
          return thrown;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ValidationFailedError);
      expect(error).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: 'Idempotency-Key must be 1 to 255 printable ASCII characters',
        details: {
          issues: [
            {
              field: 'Idempotency-Key',
              rule: 'format',
              message: 'Idempotency-Key must be 1 to 255 printable ASCII characters',
            },
          ],
        },
      });
    },
  );

  it('names a request for 24 hours', () => {
    expect(IDEMPOTENCY_WINDOW_MS).toBe(86_400_000);
  });

  it('given the same hash, when compared, then nothing is thrown; given another, then CONFLICT with what the key made', () => {
    expect(() => assertSameRequest('h1', 'h1', { locationId: 'L' })).not.toThrow();
    expect(() => assertSameRequest('h1', 'h2', { locationId: 'L' })).toThrow(ConflictError);
    expect(() => assertSameRequest('h1', 'h2', { locationId: 'L' })).toThrow(
      'this Idempotency-Key was used with another request body within the last 24 hours',
    );
    try {
      assertSameRequest('h1', 'h2', { locationId: 'L' });
    } catch (error) {
      expect(error).toMatchObject({ code: 'CONFLICT', details: { locationId: 'L' } });
    }
  });

  describe('canonicalJson', () => {
    it('given objects that differ in key order only, at any depth, when written, then they are the same text', () => {
      const a = { b: 1, a: { d: [{ y: 1, x: 2 }], c: null }, C: 'upper' };
      const b = { C: 'upper', a: { c: null, d: [{ x: 2, y: 1 }] }, b: 1 };
      expect(canonicalJson(a)).toBe(canonicalJson(b));
      expect(canonicalJson(a)).toBe('{"C":"upper","a":{"c":null,"d":[{"x":2,"y":1}]},"b":1}');
    });

    it('given arrays in another order or other values, when written, then they differ', () => {
      expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
      expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
      expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: 1, b: undefined, c: 2 }));
    });

    it('given scalars, null and keys that sort by code point, when written, then as JSON', () => {
      expect(canonicalJson('x')).toBe('"x"');
      expect(canonicalJson(null)).toBe('null');
      expect(canonicalJson(3)).toBe('3');
      expect(canonicalJson({ b: 1, a: 2, a1: 3, B: 4, '': 5 })).toBe('{"":5,"B":4,"a":2,"a1":3,"b":1}');
      expect(canonicalJson({ aa: 1, a: 2 })).toBe('{"a":2,"aa":1}');
      expect(canonicalJson({ z: 1, y: 2, x: 3, w: 4, v: 5, u: 6 })).toBe('{"u":6,"v":5,"w":4,"x":3,"y":2,"z":1}');
      expect(canonicalJson({ a: { c: 1, b: 2 } })).toBe('{"a":{"b":2,"c":1}}');
    });
  });
});
