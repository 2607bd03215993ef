import { sampleLocation } from '../testing/fixtures';
import { locationInputSchema, type LocationInput } from './location';
import { isWellFormedLocationInput } from './location-fast-check';
import { validate } from '../validation';

const { id: _id, createdAt: _createdAt, updatedAt: _updatedAt, ...sampleInput } = sampleLocation;
// What validate() accepts: the schema, and no NUL character anywhere.
const schemaAccepts = (value: unknown) => validate(locationInputSchema, value).ok;
const clone = <T>(value: T): T => structuredClone(value);

describe('isWellFormedLocationInput', () => {
  it.each<[string, unknown]>([
    ['every field', sampleInput],
    [
      'geography and coordinates only',
      { geography: sampleInput.geography, coordinates: { latitude: -90, longitude: 180 } },
    ],
    ['an empty customFields object', { ...sampleInput, customFields: {} }],
    ['an empty fiberAccessDetails object', { ...sampleInput, fiberAccessDetails: {} }],
    ['a dropStatus of one word', { ...sampleInput, fiberAccessDetails: { dropStatus: 'AERIAL' } }],
    ['a dropStatus of three words', { ...sampleInput, fiberAccessDetails: { dropStatus: 'TEMP_DROP_2' } }],
    [
      'objects without a prototype (as some parsers build them)',
      Object.assign(Object.create(null) as object, {
        ...sampleInput,
        geography: Object.assign(Object.create(null) as object, sampleInput.geography),
      }),
    ],
  ])('given a valid body with %s, when checked, then both it and the schema accept it', (_case, value) => {
    expect(isWellFormedLocationInput(value)).toBe(true);
    expect(schemaAccepts(value)).toBe(true);
  });

  it.each<[string, (input: any) => void]>([
    ['a blank notes', (input) => (input.notes = '  ')],
    ['a malformed locationGroupId', (input) => (input.locationGroupId = 'abc')],
    ['no geography', (input) => delete input.geography],
    ['a lower-case country', (input) => (input.geography.country = 'us')],
    ['an empty region', (input) => (input.geography.region = '')],
    ['an unknown geography field', (input) => (input.geography.county = 'x')],
    ['a numeric streetNumber', (input) => (input.address.streetNumber = 12)],
    ['a streetDirection NNE', (input) => (input.address.streetDirection = 'NNE')],
    ['no streetType', (input) => delete input.address.streetType],
    ['a malformed addressGroupId', (input) => (input.address.addressGroupId = 'x')],
    ['latitude 90.5', (input) => (input.coordinates.latitude = 90.5)],
    ['longitude -181', (input) => (input.coordinates.longitude = -181)],
    ['a NaN latitude', (input) => (input.coordinates.latitude = Number.NaN)],
    ['a string latitude', (input) => (input.coordinates.latitude = '1')],
    ['an unknown protocol', (input) => (input.fiberAccessDetails.layer2AccessProtocol = 'XPON')],
    ['a lower-case dropStatus', (input) => (input.fiberAccessDetails.dropStatus = 'temp')],
    ['an unknown status', (input) => (input.fiberAccessDetails.serviceability.status = 'LIVE')],
    ['no status', (input) => delete input.fiberAccessDetails.serviceability.status],
    ['a 2023-02-29 availableDate', (input) => (input.fiberAccessDetails.serviceability.availableDate = '2023-02-29')],
    ['a nested custom field', (input) => (input.customFields.nested = { a: 1 })],
    ['a null custom field', (input) => (input.customFields.gone = null)],
    ['an object in a custom field array', (input) => (input.customFields.tags = ['a', {}])],
    ['an infinite custom field', (input) => (input.customFields.size = Number.POSITIVE_INFINITY)],
    ['an unknown root field', (input) => (input.colour = 'blue')],
    ['null for an optional object', (input) => (input.address = null)],
    ['the NUL character in notes', (input) => (input.notes = 'a\u0000')],
    ['the NUL character in a street name', (input) => (input.address.streetName = '\u0000b')],
    ['the NUL character in a custom field', (input) => (input.customFields.tier = 'g\u0000')],
    ['the NUL character in a custom field item', (input) => (input.customFields.tags = ['\u0000'])],
    ['the NUL character in a custom field name', (input) => (input.customFields['k\u0000'] = 1)],
    ['a country in an array', (input) => (input.geography.country = ['US'])],
    ['a blank streetSuffix', (input) => (input.address.streetSuffix = ' ')],
    ['a blank subunitIdentifier', (input) => (input.address.subunitIdentifier = ' ')],
    ['a blank circuitId', (input) => (input.fiberAccessDetails.circuitId = ' ')],
    ['a blank fda', (input) => (input.fiberAccessDetails.fda = ' ')],
    ['a blank fdh', (input) => (input.fiberAccessDetails.fdh = ' ')],
    ['a blank splitterPort', (input) => (input.fiberAccessDetails.splitterPort = ' ')],
    ['a dropStatus in an array', (input) => (input.fiberAccessDetails.dropStatus = ['AERIAL'])],
    [
      'an availableDate in an array',
      (input) => (input.fiberAccessDetails.serviceability.availableDate = ['2024-02-29']),
    ],
  ])('given a body with %s, when checked, then neither it nor the schema accepts it', (_case, mutate) => {
    const input = clone(sampleInput) as any;
    mutate(input);
    expect(isWellFormedLocationInput(input)).toBe(false);
    expect(schemaAccepts(input)).toBe(false);
  });

  it('given an undefined member or a class instance, when checked, then it defers to the schema', () => {
    expect(isWellFormedLocationInput({ ...sampleInput, notes: undefined })).toBe(false);
    class Body {
      geography = sampleInput.geography;
      coordinates = sampleInput.coordinates;
    }
    expect(isWellFormedLocationInput(new Body())).toBe(false);
  });

  it('given a custom field named __proto__ (as JSON.parse makes it), when checked, then it defers to the schema', () => {
    const input = { ...sampleInput, customFields: JSON.parse('{"__proto__":"x"}') as Record<string, unknown> };
    expect(Object.keys(input.customFields)).toEqual(['__proto__']);
    expect(isWellFormedLocationInput(input)).toBe(false);
  });

  it('given 20,000 random mutations of a valid body, when checked, then it never accepts what the schema rejects', () => {
    let seed = 42;
    const next = () => {
      seed = (seed + 0x6d2b79f5) >>> 0;
      let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
    };
    const values: unknown[] = [
      '',
      ' ',
      'x',
      'US',
      'us',
      'N',
      'NNE',
      'GPON',
      'XGS-PON',
      'ACTIVE',
      'LIVE',
      'TEMP_DROP',
      'temp_drop',
      '2024-02-29',
      '2023-02-29',
      '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50',
      '5a2d9c7e',
      0,
      -1,
      91,
      -181,
      45.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      true,
      false,
      null,
      undefined,
      [],
      ['a', 1],
      [{}],
      {},
      { a: 1 },
    ];
    const paths = [
      ['notes'],
      ['locationGroupId'],
      ['geography'],
      ['geography', 'country'],
      ['geography', 'region'],
      ['geography', 'postalCode'],
      ['address'],
      ['address', 'streetNumber'],
      ['address', 'streetDirection'],
      ['address', 'streetType'],
      ['address', 'subunitType'],
      ['address', 'addressGroupId'],
      ['coordinates'],
      ['coordinates', 'latitude'],
      ['coordinates', 'longitude'],
      ['fiberAccessDetails'],
      ['fiberAccessDetails', 'layer2AccessProtocol'],
      ['fiberAccessDetails', 'dropStatus'],
      ['fiberAccessDetails', 'serviceability'],
      ['fiberAccessDetails', 'serviceability', 'status'],
      ['fiberAccessDetails', 'serviceability', 'availableDate'],
      ['customFields'],
      ['customFields', 'tags'],
      ['customFields', 'x'],
      ['extra'],
      ['address', 'extra'],
    ];
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
    let accepted = 0;
    for (let round = 0; round < 20_000; round += 1) {
      const input = clone(sampleInput) as Record<string, any>;
      for (let change = 0; change < 1 + Math.floor(next() * 3); change += 1) {
        const path = pick(paths);
        let target: any = input;
        for (const key of path.slice(0, -1))
          target = typeof target?.[key] === 'object' && target[key] !== null ? target[key] : undefined;
        if (target === undefined) continue;
        const value = pick(values);
        if (next() < 0.2) delete target[path[path.length - 1]!];
        else target[path[path.length - 1]!] = typeof value === 'object' && value !== null ? clone(value) : value;
      }
      if (isWellFormedLocationInput(input)) {
        accepted += 1;
        expect({ input, schema: schemaAccepts(input) }).toEqual({ input, schema: true });
      }
    }
    expect(accepted).toBeGreaterThan(1_000);
  });

  it('given a valid body, when accepted, then the schema would return the same value', () => {
    const parsed: LocationInput = locationInputSchema.parse(sampleInput);
    expect(isWellFormedLocationInput(sampleInput)).toBe(true);
    expect(parsed).toEqual(sampleInput);
  });
});
