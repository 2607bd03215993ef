import { UuidParamPipe } from './uuid-param.pipe';

describe('UuidParamPipe', () => {
  const pipe = new UuidParamPipe();

  it('given a UUID in upper case, when transformed, then it is the canonical lower case', () => {
    expect(pipe.transform('0B6F4F8E-3C1A-4B8E-9D5E-2A7C1F0E9B11', { type: 'param', data: 'id' })).toBe(
      '0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11',
    );
  });

  it.each(['', 'abc', '0b6f4f8e3c1a4b8e9d5e2a7c1f0e9b11', '0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b1g'])(
    'given %p, when transformed, then INVALID_REQUEST names the parameter',
    (value) => {
      expect(() => pipe.transform(value, { type: 'param', data: 'groupId' })).toThrow(
        expect.objectContaining({
          code: 'INVALID_REQUEST',
          message: 'groupId must be a UUID',
          details: { issues: [{ field: 'groupId', rule: 'uuid', message: 'groupId must be a UUID' }] },
        }),
      );
    },
  );

  it('given a parameter without a name, when the value is not a UUID, then the message calls it id', () => {
    expect(() => pipe.transform('abc', { type: 'param' })).toThrow(
      expect.objectContaining({ message: 'id must be a UUID' }),
    );
  });
});
