import { issuesOf, sampleLocation } from '../testing/fixtures';
import {
  locationInputSchema,
  locationModifiedFieldsSchema,
  locationSchema,
  type LocationInput,
  type LocationModifiedFields,
} from './location';

const { id: _id, createdAt: _createdAt, updatedAt: _updatedAt, ...sampleInput } = sampleLocation;
const minimalInput: LocationInput = {
  geography: { country: 'US', region: 'CO', locality: 'Denver', postalCode: '80202' },
  coordinates: { latitude: 39.7, longitude: -104.9 },
};

const withInput = (overrides: Record<string, unknown>) => ({ ...sampleInput, ...overrides });
const withAddress = (overrides: Record<string, unknown>) =>
  withInput({ address: { ...sampleInput.address, ...overrides } });
const withFiber = (overrides: Record<string, unknown>) =>
  withInput({ fiberAccessDetails: { ...sampleInput.fiberAccessDetails, ...overrides } });

describe('locationSchema', () => {
  it('given a Location using every field, when validated, then it is accepted unchanged', () => {
    expect(locationSchema.parse(sampleLocation)).toEqual(sampleLocation);
  });

  it('given a Location without id, createdAt and updatedAt, when validated, then each is required', () => {
    expect(issuesOf(locationSchema, sampleInput)).toEqual([
      { field: 'id', rule: 'required', message: 'id is required' },
      { field: 'createdAt', rule: 'required', message: 'createdAt is required' },
      { field: 'updatedAt', rule: 'required', message: 'updatedAt is required' },
    ]);
  });

  it('given a Location with a non-UTC updatedAt and a malformed id, when validated, then both are named', () => {
    expect(issuesOf(locationSchema, { ...sampleLocation, id: '42', updatedAt: '2024-03-01T08:30:00+01:00' })).toEqual([
      { field: 'id', rule: 'uuid', message: 'id must be a UUID' },
      {
        field: 'updatedAt',
        rule: 'dateTime',
        message: 'updatedAt must be an ISO 8601 UTC date-time ending in Z, like 2024-01-31T09:30:00Z',
      },
    ]);
  });
});

describe('locationInputSchema', () => {
  it('given only geography and coordinates, when validated, then the shape is accepted', () => {
    expect(issuesOf(locationInputSchema, minimalInput)).toEqual([]);
  });

  it('given the server-owned id, createdAt and updatedAt, when validated, then they are unknown fields', () => {
    expect(issuesOf(locationInputSchema, sampleLocation)).toEqual([
      { field: 'id', rule: 'unknownField', message: 'unknown field "id"' },
      { field: 'createdAt', rule: 'unknownField', message: 'unknown field "createdAt"' },
      { field: 'updatedAt', rule: 'unknownField', message: 'unknown field "updatedAt"' },
    ]);
  });

  describe('geography', () => {
    it('given no geography, when validated, then "geography is required"', () => {
      expect(issuesOf(locationInputSchema, { coordinates: minimalInput.coordinates })).toEqual([
        { field: 'geography', rule: 'required', message: 'geography is required' },
      ]);
    });

    it('given an empty geography, when validated, then all four fields are required', () => {
      expect(issuesOf(locationInputSchema, { ...minimalInput, geography: {} }).map((issue) => issue.message)).toEqual([
        'geography.country is required',
        'geography.region is required',
        'geography.locality is required',
        'geography.postalCode is required',
      ]);
    });

    it('given a lower-case country and a blank region, when validated, then both are named', () => {
      const geography = { ...minimalInput.geography, country: 'us', region: ' ' };
      expect(issuesOf(locationInputSchema, { ...minimalInput, geography })).toEqual([
        {
          field: 'geography.country',
          rule: 'countryCode',
          message: 'geography.country must be an ISO 3166-1 alpha-2 country code of two upper-case letters',
        },
        { field: 'geography.region', rule: 'nonEmpty', message: 'geography.region must not be empty' },
      ]);
    });
  });

  describe('address', () => {
    it('given an address without its required parts, when validated, then each one is required', () => {
      expect(issuesOf(locationInputSchema, withInput({ address: { streetDirection: 'N' } }))).toEqual([
        { field: 'address.streetNumber', rule: 'required', message: 'address.streetNumber is required' },
        { field: 'address.streetName', rule: 'required', message: 'address.streetName is required' },
        { field: 'address.streetType', rule: 'required', message: 'address.streetType is required' },
      ]);
    });

    it.each(['AVENUE', 'Ave', 'ST', 'Street'])(
      'given streetType %p, when validated, then any spelling is accepted',
      (streetType) => {
        expect(issuesOf(locationInputSchema, withAddress({ streetType }))).toEqual([]);
      },
    );

    it('given an unknown streetDirection, when validated, then the eight directions are listed', () => {
      expect(issuesOf(locationInputSchema, withAddress({ streetDirection: 'North' }))).toEqual([
        {
          field: 'address.streetDirection',
          rule: 'enum',
          message: 'address.streetDirection must be one of N, S, E, W, NE, NW, SE, SW',
        },
      ]);
    });

    it('given a malformed addressGroupId, when validated, then it must be a UUID', () => {
      expect(issuesOf(locationInputSchema, withAddress({ addressGroupId: 'mdu-1' }))).toEqual([
        { field: 'address.addressGroupId', rule: 'uuid', message: 'address.addressGroupId must be a UUID' },
      ]);
    });

    it('given an unknown address field, when validated, then it is named with its path', () => {
      expect(issuesOf(locationInputSchema, withAddress({ building: 'B' }))).toEqual([
        { field: 'address.building', rule: 'unknownField', message: 'unknown field "address.building"' },
      ]);
    });
  });

  describe('coordinates', () => {
    it.each([
      [{ latitude: 90.5, longitude: 0 }, 'coordinates.latitude', 'coordinates.latitude must be between -90 and 90'],
      [
        { latitude: 0, longitude: -180.1 },
        'coordinates.longitude',
        'coordinates.longitude must be between -180 and 180',
      ],
    ])('given %p, when validated, then %s is out of range', (coordinates, field, message) => {
      expect(issuesOf(locationInputSchema, withInput({ coordinates }))).toEqual([{ field, rule: 'range', message }]);
    });

    it('given the extreme values, when validated, then they are accepted', () => {
      expect(issuesOf(locationInputSchema, withInput({ coordinates: { latitude: -90, longitude: 180 } }))).toEqual([]);
    });

    it('given coordinates without longitude and with a string latitude, when validated, then both are named', () => {
      expect(issuesOf(locationInputSchema, withInput({ coordinates: { latitude: '39.7' } }))).toEqual([
        { field: 'coordinates.latitude', rule: 'type', message: 'coordinates.latitude must be a number' },
        { field: 'coordinates.longitude', rule: 'required', message: 'coordinates.longitude is required' },
      ]);
    });
  });

  describe('fiberAccessDetails', () => {
    it.each(['GPON', 'EPON', 'XGS-PON', 'XGPON', 'NGPON2', 'ETHERNET', 'OTHER'])(
      'given layer2AccessProtocol %p, when validated, then it is accepted',
      (layer2AccessProtocol) => expect(issuesOf(locationInputSchema, withFiber({ layer2AccessProtocol }))).toEqual([]),
    );

    it('given an unknown layer2AccessProtocol, when validated, then the OAF-100 values are listed', () => {
      expect(issuesOf(locationInputSchema, withFiber({ layer2AccessProtocol: 'XGSPON' }))).toEqual([
        {
          field: 'fiberAccessDetails.layer2AccessProtocol',
          rule: 'enum',
          message:
            'fiberAccessDetails.layer2AccessProtocol must be one of GPON, EPON, XGS-PON, XGPON, NGPON2, ETHERNET, OTHER',
        },
      ]);
    });

    it.each(['TEMP_DROP', 'UNDERGROUND_COMPLETE', 'AERIAL_COMPLETE'])(
      'given dropStatus %p, when validated, then any UPPER_SNAKE_CASE token is accepted',
      (dropStatus) => expect(issuesOf(locationInputSchema, withFiber({ dropStatus }))).toEqual([]),
    );

    it('given a lower-case dropStatus, when validated, then it must be UPPER_SNAKE_CASE', () => {
      expect(issuesOf(locationInputSchema, withFiber({ dropStatus: 'temp drop' }))).toEqual([
        {
          field: 'fiberAccessDetails.dropStatus',
          rule: 'upperSnakeCase',
          message: 'fiberAccessDetails.dropStatus must be an UPPER_SNAKE_CASE value',
        },
      ]);
    });

    it('given an unknown serviceability status and an impossible availableDate, when validated, then both are named', () => {
      const serviceability = { status: 'LIVE', availableDate: '2024-02-30' };
      expect(issuesOf(locationInputSchema, withFiber({ serviceability }))).toEqual([
        {
          field: 'fiberAccessDetails.serviceability.status',
          rule: 'enum',
          message:
            'fiberAccessDetails.serviceability.status must be one of PLANNED, CONSTRUCTION, ACTIVE, INACTIVE, CANCELLED, RETIRED',
        },
        {
          field: 'fiberAccessDetails.serviceability.availableDate',
          rule: 'date',
          message: 'fiberAccessDetails.serviceability.availableDate must be a calendar date in the form YYYY-MM-DD',
        },
      ]);
    });

    it('given serviceability without status, when validated, then status is required', () => {
      expect(issuesOf(locationInputSchema, withFiber({ serviceability: {} }))).toEqual([
        {
          field: 'fiberAccessDetails.serviceability.status',
          rule: 'required',
          message: 'fiberAccessDetails.serviceability.status is required',
        },
      ]);
    });
  });

  describe('customFields', () => {
    it('given strings, numbers, booleans, arrays of those and an empty array, when validated, then they are accepted', () => {
      const customFields = { a: 'x', b: -1.5, c: false, d: ['x', 1, true], e: [] };
      expect(issuesOf(locationInputSchema, withInput({ customFields }))).toEqual([]);
    });

    it.each([
      [{ foo: null }, 'customFields.foo'],
      [{ foo: { nested: 1 } }, 'customFields.foo'],
      [{ 'a.b': {} }, 'customFields["a.b"]'],
    ])('given %p, when validated, then %s must be a scalar or an array of scalars', (customFields, field) => {
      expect(issuesOf(locationInputSchema, withInput({ customFields }))).toEqual([
        { field, rule: 'customFieldValue', message: `${field} must be a string, number, boolean or an array of those` },
      ]);
    });

    it('given arrays holding an object and a nested array, when validated, then each bad item is named', () => {
      expect(issuesOf(locationInputSchema, withInput({ customFields: { foo: ['ok', 1, { x: 1 }, [2]] } }))).toEqual([
        {
          field: 'customFields.foo[2]',
          rule: 'customFieldItem',
          message: 'customFields.foo[2] must be a string, number or boolean',
        },
        {
          field: 'customFields.foo[3]',
          rule: 'customFieldItem',
          message: 'customFields.foo[3] must be a string, number or boolean',
        },
      ]);
    });

    it('given customFields as an array, when validated, then it must be an object', () => {
      expect(issuesOf(locationInputSchema, withInput({ customFields: ['a'] }))).toEqual([
        { field: 'customFields', rule: 'type', message: 'customFields must be an object' },
      ]);
    });
  });

  describe('optional fields', () => {
    it.each(['notes', 'locationGroupId', 'address', 'coordinates', 'fiberAccessDetails', 'customFields'])(
      'given null for %s, when validated, then it must not be null (absent fields are omitted)',
      (field) => {
        expect(issuesOf(locationInputSchema, withInput({ [field]: null }))).toEqual([
          { field, rule: 'notNull', message: `${field} must not be null` },
        ]);
      },
    );

    it('given an empty notes string, when validated, then it must not be empty', () => {
      expect(issuesOf(locationInputSchema, withInput({ notes: '' }))).toEqual([
        { field: 'notes', rule: 'nonEmpty', message: 'notes must not be empty' },
      ]);
    });
  });
});

describe('locationModifiedFieldsSchema', () => {
  it('given a status change, when validated, then the sparse nesting is accepted', () => {
    const changes: LocationModifiedFields = { fiberAccessDetails: { serviceability: { status: 'ACTIVE' } } };
    expect(issuesOf(locationModifiedFieldsSchema, changes)).toEqual([]);
  });

  it('given removed fields as null and a changed custom field array, when validated, then they are accepted', () => {
    const changes: LocationModifiedFields = {
      notes: null,
      address: { subunitType: null },
      customFields: { tags: ['a'], old: null },
    };
    expect(issuesOf(locationModifiedFieldsSchema, changes)).toEqual([]);
  });

  it('given a changed leaf with a bad value or a server-owned field, when validated, then they are named', () => {
    expect(
      issuesOf(locationModifiedFieldsSchema, { coordinates: { latitude: 100 }, updatedAt: '2024-01-01T00:00:00Z' }),
    ).toEqual([
      { field: 'coordinates.latitude', rule: 'range', message: 'coordinates.latitude must be between -90 and 90' },
      { field: 'updatedAt', rule: 'unknownField', message: 'unknown field "updatedAt"' },
    ]);
  });
});
