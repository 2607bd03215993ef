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
