import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import type { ZodTypeAny } from 'zod';
import {
  boundedNumberSchema,
  countryCodeSchema,
  countSchema,
  httpUrlSchema,
  isoDateSchema,
  isUuid,
  nonEmptyStringSchema,
  upperSnakeCaseSchema,
  utcDateTimeSchema,
  uuidSchema,
} from './primitives';
import { issuesOf } from './testing/fixtures';

/** The JSON Schema the OpenAPI document publishes for a schema. */
function documented(schema: ZodTypeAny): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  registry.register('Schema', schema);
  return new OpenApiGeneratorV31(registry.definitions).generateComponents().components?.schemas?.['Schema'] as Record<
    string,
    unknown
  >;
}

describe('uuidSchema', () => {
  it.each(['0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11', '0B6F4F8E-3C1A-4B8E-9D5E-2A7C1F0E9B11'])(
    'given %p, when validated, then it is accepted',
    (value) => expect(issuesOf(uuidSchema, value)).toEqual([]),
  );

  it.each(['', 'abc', '0b6f4f8e3c1a4b8e9d5e2a7c1f0e9b11', '0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b1g'])(
    'given %p, when validated, then "value must be a UUID"',
    (value) =>
      expect(issuesOf(uuidSchema, value)).toEqual([{ field: '', rule: 'uuid', message: 'value must be a UUID' }]),
  );

  it.each([
    '0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11',
    '0B6F4F8E-3C1A-4B8E-9D5E-2A7C1F0E9B11',
    '00000000-0000-0000-0000-000000000000',
    '',
    'abc',
    '0b6f4f8e3c1a4b8e9d5e2a7c1f0e9b11',
    '0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b1g',
    ' 0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11',
    '0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11\n',
    '{0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11}',
  ])('given %p, when isUuid checks it, then it agrees with uuidSchema', (value) =>
    expect(isUuid(value)).toBe(uuidSchema.safeParse(value).success),
  );
});

describe('utcDateTimeSchema', () => {
  it.each(['2024-01-31T09:30:00Z', '2024-01-31T09:30:00.1Z', '2024-01-31T23:59:59.123456Z', '2024-02-29T00:00:00Z'])(
    'given %p, when validated, then it is accepted',
    (value) => expect(issuesOf(utcDateTimeSchema, value)).toEqual([]),
  );

  it.each([
    '2024-01-31T09:30:00',
    '2024-01-31T09:30:00+00:00',
    '2024-01-31T09:30:00+02:00',
    '2024-01-31T09:30Z',
    '2024-01-31 09:30:00Z',
    '2024-01-31t09:30:00z',
    '2024-02-30T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '2024-01-31T24:00:00Z',
    '2024-01-31T09:60:00Z',
    '2024-01-31',
    '',
  ])('given %p, when validated, then it is rejected as not a UTC date-time', (value) => {
    expect(issuesOf(utcDateTimeSchema, value)).toEqual([
      {
        field: '',
        rule: 'dateTime',
        message: 'value must be an ISO 8601 UTC date-time ending in Z, like 2024-01-31T09:30:00Z',
      },
    ]);
  });

  it.each(['x2024-01-31T09:30:00Z', '2024-01-31T09:30:00Zx', '2024-01-31T09:30:00Z\n'])(
    'given %p, with text around a date-time, when validated, then it is rejected',
    (value) => expect(issuesOf(utcDateTimeSchema, value).map((issue) => issue.rule)).toEqual(['dateTime']),
  );

  it('given a number, when validated, then it must be a string', () => {
    expect(issuesOf(utcDateTimeSchema, 1706693400000)).toEqual([
      { field: '', rule: 'type', message: 'value must be a string' },
    ]);
  });
});

describe('isoDateSchema', () => {
  it.each(['2024-02-29', '2000-02-29', '2023-12-31', '2024-04-30'])(
    'given %p, when validated, then it is accepted',
    (value) => expect(issuesOf(isoDateSchema, value)).toEqual([]),
  );

  it.each([
    '2024-02-30',
    '2023-02-29',
    '1900-02-29',
    '2024-04-31',
    '2024-13-01',
    '2024-00-10',
    '2024-01-00',
    '2024-1-01',
    '2024-01-31T00:00:00Z',
  ])('given %p, when validated, then it is rejected as not a calendar date', (value) =>
    expect(issuesOf(isoDateSchema, value)).toEqual([
      { field: '', rule: 'date', message: 'value must be a calendar date in the form YYYY-MM-DD' },
    ]),
  );
});

describe('nonEmptyStringSchema', () => {
  it('given a non-blank string, when validated, then it is accepted', () => {
    expect(issuesOf(nonEmptyStringSchema, ' x ')).toEqual([]);
  });

  it.each(['', '   ', '\t\n'])('given %p, when validated, then "value must not be empty"', (value) => {
    expect(issuesOf(nonEmptyStringSchema, value)).toEqual([
      { field: '', rule: 'nonEmpty', message: 'value must not be empty' },
    ]);
  });
});

describe('countryCodeSchema', () => {
  it('given two upper-case letters, when validated, then it is accepted', () => {
    expect(issuesOf(countryCodeSchema, 'US')).toEqual([]);
  });

  it.each(['us', 'USA', 'U', 'U1', ''])('given %p, when validated, then it is rejected', (value) => {
    expect(issuesOf(countryCodeSchema, value)).toEqual([
      {
        field: '',
        rule: 'countryCode',
        message: 'value must be an ISO 3166-1 alpha-2 country code of two upper-case letters',
      },
    ]);
  });
});

describe('upperSnakeCaseSchema', () => {
  it.each(['TEMP_DROP', 'UNDERGROUND_COMPLETE', 'AERIAL', 'PHASE_2'])(
    'given %p, when validated, then it is accepted',
    (value) => expect(issuesOf(upperSnakeCaseSchema, value)).toEqual([]),
  );

  it.each(['temp_drop', 'Temp_Drop', '_TEMP', 'TEMP_', 'TEMP__DROP', 'TEMP-DROP', '2_TEMP', ''])(
    'given %p, when validated, then it is rejected',
    (value) =>
      expect(issuesOf(upperSnakeCaseSchema, value)).toEqual([
        { field: '', rule: 'upperSnakeCase', message: 'value must be an UPPER_SNAKE_CASE value' },
      ]),
  );
});

describe('httpUrlSchema', () => {
  it.each(['https://exports.example.com/a.json?sig=1', 'http://localhost:9000/x'])(
    'given %p, when validated, then it is accepted',
    (value) => expect(issuesOf(httpUrlSchema, value)).toEqual([]),
  );

  it.each(['javascript:alert(1)', 'ftp://example.com/a', '/relative/path', 'not a url'])(
    'given %p, when validated, then it is rejected',
    (value) =>
      expect(issuesOf(httpUrlSchema, value)).toEqual([
        { field: '', rule: 'url', message: 'value must be an absolute http or https URL' },
      ]),
  );
});

describe('boundedNumberSchema', () => {
  const latitude = boundedNumberSchema(-90, 90);

  it.each([-90, 0, 45.5, 90])('given %p, when validated, then it is accepted', (value) => {
    expect(issuesOf(latitude, value)).toEqual([]);
  });

  it.each([-90.0001, 91, 1e9])('given %p, when validated, then "value must be between -90 and 90"', (value) => {
    expect(issuesOf(latitude, value)).toEqual([
      { field: '', rule: 'range', message: 'value must be between -90 and 90' },
    ]);
  });

  it.each([Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN])(
    'given %p, when validated, then "value must be a finite number" once',
    (value) => {
      expect(issuesOf(latitude, value)).toEqual([
        { field: '', rule: 'finite', message: 'value must be a finite number' },
      ]);
    },
  );

  it('given a numeric string, when validated, then it must be a number', () => {
    expect(issuesOf(latitude, '45')).toEqual([{ field: '', rule: 'type', message: 'value must be a number' }]);
  });
});

describe('countSchema', () => {
  it.each([0, 7])('given %p, when validated, then it is accepted', (value) =>
    expect(issuesOf(countSchema, value)).toEqual([]),
  );

  it('given a negative count, when validated, then "value must be at least 0"', () => {
    expect(issuesOf(countSchema, -1)).toEqual([{ field: '', rule: 'min', message: 'value must be at least 0' }]);
  });
});

describe('isUuid', () => {
  it('given a UUID string, when checked, then it is one', () => {
    expect(isUuid('0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11')).toBe(true);
  });

  it.each<[string, unknown]>([
    ['an array holding a UUID', ['0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11']],
    ['an object printing as a UUID', { toString: () => '0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11' }],
    ['undefined', undefined],
  ])('given %s, which only prints as a UUID, when checked, then it is none', (_case, value) => {
    expect(isUuid(value)).toBe(false);
  });
});

describe('the schemas as the OpenAPI document publishes them', () => {
  const stringPatterns: [string, ZodTypeAny, Record<string, unknown>, string[], string[]][] = [
    [
      'nonEmptyStringSchema',
      nonEmptyStringSchema,
      { type: 'string', minLength: 1, pattern: '\\S' },
      ['a', ' x '],
      ['', ' ', '\t\n'],
    ],
    [
      'utcDateTimeSchema',
      utcDateTimeSchema,
      {
        type: 'string',
        format: 'date-time',
        pattern: '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(\\.\\d+)?Z$',
        example: '2024-01-31T09:30:00Z',
      },
      ['2024-01-31T09:30:00Z', '2024-12-01T23:59:59.5Z'],
      ['2024-13-01T00:00:00Z', '2024-01-32T00:00:00Z', '2024-01-00T00:00:00Z', '2024-01-31T24:00:00Z', '2024-01-31'],
    ],
    [
      'isoDateSchema',
      isoDateSchema,
      {
        type: 'string',
        format: 'date',
        pattern: '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$',
        example: '2024-02-29',
      },
      ['2024-02-29', '2023-12-31', '2024-10-19'],
      ['2024-00-10', '2024-13-10', '2024-10-00', '2024-10-32', '2024-1-10', '2024-02-29T00:00:00Z'],
    ],
    [
      'countryCodeSchema',
      countryCodeSchema,
      { type: 'string', pattern: '^[A-Z]{2}$', example: 'US' },
      ['US'],
      ['us', 'USA'],
    ],
    [
      'upperSnakeCaseSchema',
      upperSnakeCaseSchema,
      { type: 'string', pattern: '^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$' },
      ['AERIAL', 'PHASE_2'],
      ['_TEMP', 'temp'],
    ],
    [
      'httpUrlSchema',
      httpUrlSchema,
      { type: 'string', format: 'uri', pattern: '^https?://' },
      ['https://example.com/a', 'http://localhost:9000/x'],
      ['ftp://example.com/a', '/relative/path'],
    ],
  ];

  it.each(stringPatterns)(
    'given %s, when documented, then its pattern agrees with the schema and its example is valid',
    (_name, schema, expected, accepted, rejected) => {
      const published = documented(schema);
      expect(published).toEqual(expected);
      const pattern = new RegExp(published['pattern'] as string, 'u');
      for (const value of accepted)
        expect([value, schema.safeParse(value).success, pattern.test(value)]).toEqual([value, true, true]);
      for (const value of rejected)
        expect([value, schema.safeParse(value).success, pattern.test(value)]).toEqual([value, false, false]);
      if (published['example'] !== undefined) expect(schema.safeParse(published['example']).success).toBe(true);
    },
  );

  it('given a bounded number, when documented, then its range is published', () => {
    expect(documented(boundedNumberSchema(-90, 90))).toEqual({ type: 'number', minimum: -90, maximum: 90 });
  });

  it('given countSchema, when documented, then it is a non-negative integer', () => {
    expect(documented(countSchema)).toEqual({ type: 'integer', minimum: 0 });
  });
});
