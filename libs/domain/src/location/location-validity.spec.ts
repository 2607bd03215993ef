import type { ValidationIssue } from '@lx/contracts';
import type { ValidationFailedError } from '../errors/domain-error';
import { aGeography, aLocationInput, anAddress } from '../testing';
import { validateLocationInput } from './location-validity';

function rejectionOf(input: unknown): ValidationFailedError {
  const result = validateLocationInput(input);
  if (result.ok) throw new Error('expected the input to be rejected');
  return result.error;
}

function expectRejected(input: unknown, code: string, issues: ValidationIssue[]): void {
  const error = rejectionOf(input);
  expect(error.code).toBe(code);
  expect(error.details.issues).toEqual(issues);
}

describe('validateLocationInput', () => {
  describe('accepted locations', () => {
    it.each([
      ['address and coordinates', aLocationInput()],
      ['address only', aLocationInput({ coordinates: undefined })],
      ['coordinates only', aLocationInput({ address: undefined })],
      [
        'every optional field',
        aLocationInput({
          notes: 'Ring twice',
          locationGroupId: '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50',
          address: anAddress({
            streetDirection: 'NE',
            streetSuffix: 'ROAD',
            subunitType: 'APT',
            subunitIdentifier: '4B',
          }),
          fiberAccessDetails: {
            layer2AccessProtocol: 'GPON',
            dropStatus: 'TEMP_DROP',
            serviceability: { status: 'PLANNED', availableDate: '2025-06-30' },
          },
          customFields: { tier: 'gold', floors: 3, tags: ['a', 1, true] },
        }),
      ],
    ])('given a body with %s, when validated, then it is accepted as is', (_case, input) => {
      expect(validateLocationInput(input)).toEqual({ ok: true, value: input });
    });

    it('given a well-formed body, when validated, then the body itself is the value (no copy on the bulk import path)', () => {
      const input = aLocationInput();
      const result = validateLocationInput(input);
      expect(result.ok && result.value).toBe(input);
    });

    it('given a body the fast check is not sure about (an undefined member), when validated, then the schema accepts it', () => {
      const result = validateLocationInput({ ...aLocationInput(), notes: undefined });
      expect(result).toEqual({ ok: true, value: aLocationInput() });
    });
  });

  describe('geography', () => {
    it('given no geography, when validated, then VALIDATION_ERROR "geography is required"', () => {
      expectRejected(aLocationInput({ geography: undefined }), 'VALIDATION_ERROR', [
        { field: 'geography', rule: 'required', message: 'geography is required' },
      ]);
    });

    it('given a geography without postalCode, when validated, then "geography.postalCode is required"', () => {
      const { postalCode: _postalCode, ...geography } = aGeography();
      expectRejected({ ...aLocationInput(), geography }, 'VALIDATION_ERROR', [
        { field: 'geography.postalCode', rule: 'required', message: 'geography.postalCode is required' },
      ]);
    });
  });

  describe('address or coordinates', () => {
    it('given geography only, when validated, then MISSING_LOCATION_DATA', () => {
      expectRejected(aLocationInput({ address: undefined, coordinates: undefined }), 'MISSING_LOCATION_DATA', [
        {
          field: '',
          rule: 'addressOrCoordinates',
          message: 'address or coordinates is required; a location with only geography is invalid',
        },
      ]);
    });
  });

  describe('address', () => {
    it('given an address without streetNumber, streetName and streetType, when validated, then INVALID_ADDRESS_FORMAT names each', () => {
      expectRejected(aLocationInput({ address: {} as never }), 'INVALID_ADDRESS_FORMAT', [
        { field: 'address.streetNumber', rule: 'required', message: 'address.streetNumber is required' },
        { field: 'address.streetName', rule: 'required', message: 'address.streetName is required' },
        { field: 'address.streetType', rule: 'required', message: 'address.streetType is required' },
      ]);
    });

    it('given a subunitType without subunitIdentifier, when validated, then INVALID_ADDRESS_FORMAT', () => {
      expectRejected(aLocationInput({ address: anAddress({ subunitType: 'APT' }) }), 'INVALID_ADDRESS_FORMAT', [
        {
          field: 'address.subunitIdentifier',
          rule: 'requiredWith',
          message: 'address.subunitIdentifier is required when address.subunitType is present',
        },
      ]);
    });

    it('given a subunitIdentifier without subunitType, when validated, then it is accepted', () => {
      expect(validateLocationInput(aLocationInput({ address: anAddress({ subunitIdentifier: '4B' }) })).ok).toBe(true);
    });

    it('given an unknown streetDirection, when validated, then INVALID_ADDRESS_FORMAT lists the directions', () => {
      expectRejected(
        aLocationInput({ address: anAddress({ streetDirection: 'NNE' as never }) }),
        'INVALID_ADDRESS_FORMAT',
        [
          {
            field: 'address.streetDirection',
            rule: 'enum',
            message: 'address.streetDirection must be one of N, S, E, W, NE, NW, SE, SW',
          },
        ],
      );
    });
  });

  describe('coordinates', () => {
    it.each([
      [
        { latitude: 90.01, longitude: 0 },
        'coordinates.latitude',
        'range',
        'coordinates.latitude must be between -90 and 90',
      ],
      [
        { latitude: -91, longitude: 0 },
        'coordinates.latitude',
        'range',
        'coordinates.latitude must be between -90 and 90',
      ],
      [
        { latitude: 0, longitude: 180.5 },
        'coordinates.longitude',
        'range',
        'coordinates.longitude must be between -180 and 180',
      ],
      [
        { latitude: 0, longitude: -181 },
        'coordinates.longitude',
        'range',
        'coordinates.longitude must be between -180 and 180',
      ],
      [
        { latitude: Number.POSITIVE_INFINITY, longitude: 0 },
        'coordinates.latitude',
        'finite',
        'coordinates.latitude must be a finite number',
      ],
      [
        { latitude: Number.NaN, longitude: 0 },
        'coordinates.latitude',
        'finite',
        'coordinates.latitude must be a finite number',
      ],
      [{ latitude: '45', longitude: 0 }, 'coordinates.latitude', 'type', 'coordinates.latitude must be a number'],
      [{ latitude: 45 }, 'coordinates.longitude', 'required', 'coordinates.longitude is required'],
    ])('given coordinates %p, when validated, then INVALID_COORDINATES "%s"', (coordinates, field, rule, message) => {
      expectRejected({ ...aLocationInput(), coordinates }, 'INVALID_COORDINATES', [{ field, rule, message }]);
    });

    it.each([
      { latitude: -90, longitude: -180 },
      { latitude: 90, longitude: 180 },
    ])('given the boundary coordinates %p, when validated, then they are accepted', (coordinates) => {
      expect(validateLocationInput(aLocationInput({ coordinates })).ok).toBe(true);
    });
  });

  describe('customFields', () => {
    it('given an object inside a custom field array, when validated, then VALIDATION_ERROR names the item', () => {
      expectRejected({ ...aLocationInput(), customFields: { foo: ['a', 1, { b: 2 }] } }, 'VALIDATION_ERROR', [
        {
          field: 'customFields.foo[2]',
          rule: 'customFieldItem',
          message: 'customFields.foo[2] must be a string, number or boolean',
        },
      ]);
    });

    it('given a null custom field value, when validated, then VALIDATION_ERROR names the field', () => {
      expectRejected({ ...aLocationInput(), customFields: { foo: null } }, 'VALIDATION_ERROR', [
        {
          field: 'customFields.foo',
          rule: 'customFieldValue',
          message: 'customFields.foo must be a string, number, boolean or an array of those',
        },
      ]);
    });
  });

  describe('nulls, unknown fields and non-objects', () => {
    it('given null for the optional notes, when validated, then "notes must not be null"', () => {
      expectRejected({ ...aLocationInput(), notes: null }, 'VALIDATION_ERROR', [
        { field: 'notes', rule: 'notNull', message: 'notes must not be null' },
      ]);
    });

    it('given null coordinates next to an address, when validated, then INVALID_COORDINATES "coordinates must not be null"', () => {
      expectRejected({ ...aLocationInput(), coordinates: null }, 'INVALID_COORDINATES', [
        { field: 'coordinates', rule: 'notNull', message: 'coordinates must not be null' },
      ]);
    });

    it('given the server-owned id and an unknown field, when validated, then each is named', () => {
      expectRejected({ ...aLocationInput(), id: '0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11', foo: 1 }, 'VALIDATION_ERROR', [
        { field: 'id', rule: 'unknownField', message: 'unknown field "id"' },
        { field: 'foo', rule: 'unknownField', message: 'unknown field "foo"' },
      ]);
    });

    it.each(['location', 42, [aLocationInput()]])(
      'given %p, when validated, then "value must be an object"',
      (input) => {
        expectRejected(input, 'VALIDATION_ERROR', [{ field: '', rule: 'type', message: 'value must be an object' }]);
      },
    );

    it('given null, when validated, then "value must not be null"', () => {
      expectRejected(null, 'VALIDATION_ERROR', [{ field: '', rule: 'notNull', message: 'value must not be null' }]);
    });
  });

  describe('several problems at once', () => {
    it('given broken shape and broken cross-field rules, when validated, then every issue is reported under VALIDATION_ERROR', () => {
      const input = {
        geography: { ...aGeography(), country: 'USA' },
        notes: '',
        extra: true,
      };
      const error = rejectionOf(input);
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.details.issues).toEqual([
        { field: 'notes', rule: 'nonEmpty', message: 'notes must not be empty' },
        {
          field: 'geography.country',
          rule: 'countryCode',
          message: 'geography.country must be an ISO 3166-1 alpha-2 country code of two upper-case letters',
        },
        { field: 'extra', rule: 'unknownField', message: 'unknown field "extra"' },
        {
          field: '',
          rule: 'addressOrCoordinates',
          message: 'address or coordinates is required; a location with only geography is invalid',
        },
      ]);
      expect(error.message).toBe(error.details.issues.map((issue) => issue.message).join('; '));
    });

    it('given a broken address shape and a missing subunitIdentifier, when validated, then both are reported under INVALID_ADDRESS_FORMAT', () => {
      const address = { streetNumber: '', streetName: 'Main', streetType: 'ST', subunitType: 'APT' };
      expectRejected({ ...aLocationInput(), address }, 'INVALID_ADDRESS_FORMAT', [
        { field: 'address.streetNumber', rule: 'nonEmpty', message: 'address.streetNumber must not be empty' },
        {
          field: 'address.subunitIdentifier',
          rule: 'requiredWith',
          message: 'address.subunitIdentifier is required when address.subunitType is present',
        },
      ]);
    });

    it('given bad latitude and bad longitude, when validated, then both are reported under INVALID_COORDINATES', () => {
      expect(
        rejectionOf(aLocationInput({ coordinates: { latitude: 100, longitude: 200 } })).details.issues.map(
          (issue) => issue.field,
        ),
      ).toEqual(['coordinates.latitude', 'coordinates.longitude']);
    });

    it('given an address problem and a coordinates problem, when validated, then the mix is VALIDATION_ERROR', () => {
      const input = aLocationInput({
        address: anAddress({ subunitType: 'APT' }),
        coordinates: { latitude: 100, longitude: 0 },
      });
      expect(rejectionOf(input).code).toBe('VALIDATION_ERROR');
    });
  });
});
