import { deliveryIdOf, parseDeliveryId } from './delivery-id';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('delivery ids', () => {
  it.each([
    [1, 1],
    [0, 0],
    [4_294_967_296, 77],
    [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  ])(
    'given position %d and endpoint %d, then the id is a version 8 UUID that parses back to both',
    (position, endpointNo) => {
      const id = deliveryIdOf(position, endpointNo);
      expect(id).toMatch(UUID);
      expect(parseDeliveryId(id)).toEqual({ position, endpointNo });
      expect(parseDeliveryId(id.toUpperCase())).toEqual({ position, endpointNo });
    },
  );

  it('given two endpoints or two positions, then the ids differ', () => {
    expect(deliveryIdOf(5, 1)).not.toBe(deliveryIdOf(5, 2));
    expect(deliveryIdOf(5, 1)).not.toBe(deliveryIdOf(6, 1));
  });

  it('given the layout, then the position and endpoint are readable in the text', () => {
    expect(deliveryIdOf(0x1_2345_6789_abcd, 0x12)).toBe('00123456-789a-8bcd-8000-000000000012');
  });

  it.each(['0190f7a2-8b1c-7e4d-9a6b-2c3d4e5f6a7b', '6fa459ea-ee8a-4ca4-894e-db77e160355e', 'not-an-id'])(
    'given %s (not derived), then it does not parse',
    (id) => {
      expect(parseDeliveryId(id)).toBeUndefined();
    },
  );

  it('given a negative, fractional or unsafe position or endpoint, then it is refused, naming the value', () => {
    expect(() => deliveryIdOf(-1, 1)).toThrow(new RangeError('not a position: -1'));
    expect(() => deliveryIdOf(1.5, 1)).toThrow(new RangeError('not a position: 1.5'));
    expect(() => deliveryIdOf(1, 2 ** 53)).toThrow(RangeError);
  });

  it('given a derived layout holding a number beyond the safe integers, then it does not parse', () => {
    expect(parseDeliveryId('02000000-0000-8000-8000-000000000001')).toBeUndefined();
    expect(parseDeliveryId('00000000-0000-8001-8020-000000000000')).toBeUndefined();
    expect(parseDeliveryId('01ffffff-ffff-8fff-8000-000000000001')).toEqual({
      position: Number.MAX_SAFE_INTEGER,
      endpointNo: 1,
    });
  });

  it('given an id with anything before or after it, then it does not parse', () => {
    const id = deliveryIdOf(5, 1);
    expect(parseDeliveryId(`x${id}`)).toBeUndefined();
    expect(parseDeliveryId(`${id}x`)).toBeUndefined();
  });
});
