import { sampleLocation } from '../testing/fixtures';
import { validate } from '../validation';
import { locationInputSchema, type Location } from './location';
import { parse } from 'csv-parse/sync';
import {
  csvHeaderIssues,
  csvRecord,
  csvRowToLocationInput,
  LOCATION_CSV_COLUMNS,
  locationCsvRecord,
  locationToCsvRow,
  SPREADSHEET_TRIGGERS,
  spreadsheetSafeRecords,
} from './location-csv';

const { id: _id, createdAt: _createdAt, updatedAt: _updatedAt, ...sampleInput } = sampleLocation;
const keyed = (cells: readonly string[], header: readonly string[] = LOCATION_CSV_COLUMNS) =>
  Object.fromEntries(header.map((name, index) => [name, cells[index] ?? '']));

describe('LOCATION_CSV_COLUMNS', () => {
  it('given the layout, when listed, then it starts with the root fields and ends with customFields as one column', () => {
    expect(LOCATION_CSV_COLUMNS).toEqual([
      'id',
      'createdAt',
      'updatedAt',
      'notes',
      'locationGroupId',
      'geography.country',
      'geography.region',
      'geography.locality',
      'geography.postalCode',
      'address.streetNumber',
      'address.streetName',
      'address.streetDirection',
      'address.streetType',
      'address.streetSuffix',
      'address.subunitType',
      'address.subunitIdentifier',
      'address.addressGroupId',
      'coordinates.latitude',
      'coordinates.longitude',
      'fiberAccessDetails.circuitId',
      'fiberAccessDetails.fda',
      'fiberAccessDetails.fdh',
      'fiberAccessDetails.splitterPort',
      'fiberAccessDetails.layer2AccessProtocol',
      'fiberAccessDetails.dropStatus',
      'fiberAccessDetails.serviceability.status',
      'fiberAccessDetails.serviceability.availableDate',
      'customFields',
    ]);
  });

  it('given every leaf of the Location resource, when flattened, then each has exactly one column', () => {
    const leaves = (value: object, prefix = ''): string[] =>
      Object.entries(value).flatMap(([key, field]) =>
        typeof field === 'object' && !Array.isArray(field) && key !== 'customFields'
          ? leaves(field as object, `${prefix}${key}.`)
          : [`${prefix}${key}`],
      );
    expect([...leaves(sampleLocation)].sort()).toEqual([...LOCATION_CSV_COLUMNS].sort());
  });
});

describe('locationToCsvRow', () => {
  it('given a Location using every field, when flattened, then cells follow the columns and customFields is JSON', () => {
    const row = locationToCsvRow(sampleLocation);
    expect(row).toHaveLength(LOCATION_CSV_COLUMNS.length);
    expect(keyed(row)).toMatchObject({
      id: sampleLocation.id,
      createdAt: '2024-01-15T10:00:00Z',
      'geography.country': 'US',
      'address.streetDirection': 'N',
      'coordinates.latitude': '39.7447',
      'coordinates.longitude': '-104.9903',
      'fiberAccessDetails.serviceability.status': 'ACTIVE',
      customFields: '{"tier":"gold","floors":12,"mdu":true,"tags":["fiber",2,false]}',
    });
  });

  it('given a Location without optional parts, when flattened, then their cells are empty', () => {
    const location: Location = {
      id: sampleLocation.id,
      createdAt: sampleLocation.createdAt,
      updatedAt: sampleLocation.updatedAt,
      geography: sampleLocation.geography,
      coordinates: { latitude: 0, longitude: -0.5 },
    };
    const cells = keyed(locationToCsvRow(location));
    expect(cells['coordinates.latitude']).toBe('0');
    expect(cells['address.streetName']).toBe('');
    expect(cells['notes']).toBe('');
    expect(cells['customFields']).toBe('');
    expect(locationToCsvRow(location)).toEqual(
      LOCATION_CSV_COLUMNS.map(
        (name) =>
          ({
            id: location.id,
            createdAt: location.createdAt,
            updatedAt: location.updatedAt,
            'geography.country': 'US',
            'geography.region': 'CO',
            'geography.locality': 'Denver',
            'geography.postalCode': '80202',
            'coordinates.latitude': '0',
            'coordinates.longitude': '-0.5',
          })[name] ?? '',
      ),
    );
  });
});

describe('locationCsvRecord', () => {
  it('given a Location with a comma, quote and line break in its notes, when written, then one CRLF record parses back to its row', () => {
    const location: Location = { ...sampleLocation, notes: 'Gate "B", then\nleft' };
    const record = locationCsvRecord(location);
    expect(record.endsWith('\r\n')).toBe(true);
    expect(record).toBe(csvRecord(locationToCsvRow(location)));
    expect(parse(record)).toEqual([locationToCsvRow(location)]);
  });
});

describe('csvRowToLocationInput', () => {
  it('given the row of a Location, when decoded, then the id and the exact input come back (round trip)', () => {
    const record = csvRowToLocationInput(keyed(locationToCsvRow(sampleLocation)));
    expect(record).toEqual({ id: sampleLocation.id, input: sampleInput, issues: [] });
    expect(validate(locationInputSchema, record.input).ok).toBe(true);
  });

  it('given empty cells, when decoded, then their fields and empty objects are absent', () => {
    const record = csvRowToLocationInput({
      id: '',
      'geography.country': 'US',
      'geography.region': 'CO',
      'geography.locality': 'Denver',
      'geography.postalCode': '80202',
      'address.streetName': '',
      'coordinates.latitude': '1.5',
      'coordinates.longitude': '-2',
      'fiberAccessDetails.serviceability.status': '',
    });
    expect(record).toEqual({
      id: undefined,
      input: {
        geography: { country: 'US', region: 'CO', locality: 'Denver', postalCode: '80202' },
        coordinates: { latitude: 1.5, longitude: -2 },
      },
      issues: [],
    });
  });

  it('given a row without an id column, when decoded, then the id is undefined', () => {
    expect(csvRowToLocationInput({ notes: 'n' })).toEqual({ id: undefined, input: { notes: 'n' }, issues: [] });
  });

  it('given createdAt and updatedAt cells, when decoded, then they are ignored (the server owns them)', () => {
    const record = csvRowToLocationInput({ id: sampleLocation.id, createdAt: 'yesterday', updatedAt: 'now' });
    expect(record.input).toEqual({});
  });

  it('given a coordinate that is not a number, when decoded, then the text is kept for the location rules to name', () => {
    const record = csvRowToLocationInput({ 'coordinates.latitude': 'north', 'coordinates.longitude': '1e2' });
    expect(record.input).toEqual({ coordinates: { latitude: 'north', longitude: 100 } });
  });

  it.each([
    ['.55', 0.55],
    ['-.5', -0.5],
    ['+39.', 39],
    ['1e-5', 0.00001],
    ['1.5E+10', 15_000_000_000],
    ['-2e12', -2_000_000_000_000],
  ])('given the coordinate %s written as a number, when decoded, then it is the number %d', (cell, number) => {
    expect(csvRowToLocationInput({ 'coordinates.latitude': cell }).input).toEqual({
      coordinates: { latitude: number },
    });
  });

  it.each(['N39.5', '39.5N', '39.5.1', '1e', 'e5', '.', '+', '1e+-5', '- 1'])(
    'given the coordinate %j, only partly a number, when decoded, then the whole text is kept',
    (cell) => {
      expect(csvRowToLocationInput({ 'coordinates.latitude': cell }).input).toEqual({
        coordinates: { latitude: cell },
      });
    },
  );

  it('given text in a string column that looks like a number, when decoded, then it stays text', () => {
    expect(csvRowToLocationInput({ 'address.streetNumber': '1600' }).input).toEqual({
      address: { streetNumber: '1600' },
    });
  });

  it.each(['{"a":', '[1,2]', '"text"', 'null'])(
    'given customFields %p that is not a JSON object, when decoded, then an issue names the column',
    (cell) => {
      expect(csvRowToLocationInput({ id: sampleLocation.id, customFields: cell })).toEqual({
        id: sampleLocation.id,
        input: {},
        issues: [{ field: 'customFields', rule: 'json', message: 'customFields must be a JSON object' }],
      });
    },
  );
});

describe('csvHeaderIssues', () => {
  it('given the full layout or any subset with id in any order, when checked, then it is accepted', () => {
    expect(csvHeaderIssues(LOCATION_CSV_COLUMNS)).toEqual([]);
    expect(csvHeaderIssues(['geography.country', 'id', 'coordinates.latitude'])).toEqual([]);
  });

  it('given unknown, repeated and missing id columns, when checked, then each is named', () => {
    expect(csvHeaderIssues(['notes', 'colour', 'notes'])).toEqual([
      { field: 'colour', rule: 'unknownColumn', message: 'unknown column "colour"' },
      { field: 'notes', rule: 'duplicateColumn', message: 'column "notes" repeats' },
      { field: 'id', rule: 'required', message: 'column "id" is required' },
    ]);
  });
});

describe('csvRecord', () => {
  it('given plain cells, when written, then they are joined by commas and end with CRLF', () => {
    expect(csvRecord(['a', '', '1.5'])).toBe('a,,1.5\r\n');
  });

  it.each([
    ['say "hi"', '"say ""hi"""'],
    ['a,b', '"a,b"'],
    ['line\nbreak', '"line\nbreak"'],
    ['carriage\rreturn', '"carriage\rreturn"'],
    ['Zürich – 北京', 'Zürich – 北京'],
  ])('given the cell %p, when written, then it is %p', (cell, written) => {
    expect(csvRecord([cell, 'x'])).toBe(`${written},x\r\n`);
  });

  it('given a record, when parsed back by csv-parse, then every cell is the same', () => {
    const cells = ['a "b", c', 'x\r\ny', '', '{"k":[1,"v"]}'];
    expect(parse(csvRecord(cells))).toEqual([cells]);
  });
});

describe('spreadsheetSafeRecords', () => {
  /** The cells a spreadsheet (csv-parse, as a spreadsheet reads an RFC 4180 file) sees in the defused records. */
  const cellsOf = (records: string): string[][] => parse(records, { relaxQuotes: false });

  it("given the triggers, when listed, then they are OWASP's formula starters", () => {
    expect([...SPREADSHEET_TRIGGERS].sort()).toEqual(['\t', '\r', '+', '-', '=', '@'].sort());
  });

  it.each([
    ['=HYPERLINK("http://x","y")', `'=HYPERLINK("http://x","y")`],
    ['+61 2 9999 0000', `'+61 2 9999 0000`],
    ["-2+3+cmd|' /C calc'!A0", `'-2+3+cmd|' /C calc'!A0`],
    ['@SUM(A1:A2)', `'@SUM(A1:A2)`],
    ['\t=1+1', `'\t=1+1`],
    ['\r=1+1', `'\r=1+1`],
    ['-', `'-`],
  ])('given a cell %j, when defused, then a spreadsheet reads it with a leading apostrophe', (cell, seen) => {
    const record = csvRecord(['a', cell, 'b']);
    expect(cellsOf(spreadsheetSafeRecords(record))).toEqual([['a', seen, 'b']]);
  });

  it.each(['-33.8688', '+151.2093', '-1e-5', '-.5', '42', 'plain', 'a=b', ' =1', '', '""quoted'])(
    'given a cell %j that no spreadsheet runs, when defused, then it is written as it was',
    (cell) => {
      const record = csvRecord(['id', cell, '{"a":"=x"}']);
      expect(spreadsheetSafeRecords(record)).toBe(record);
    },
  );

  it('given several records with quoted line breaks, when defused, then every record and cell is kept in place', () => {
    const rows = [
      ['1', '=a\r\nb', '-0.5'],
      ['2', 'x', '@y,z'],
      ['3', '"=q"', ''],
    ];
    const text = rows.map((row) => csvRecord(row)).join('');
    expect(cellsOf(spreadsheetSafeRecords(text))).toEqual([
      ['1', "'=a\r\nb", '-0.5'],
      ['2', 'x', "'@y,z"],
      ['3', '"=q"', ''],
    ]);
  });

  it('given a location record, when defused, then its negative coordinates stay numbers and its notes are defused', () => {
    const record = locationCsvRecord({
      ...sampleLocation,
      notes: '=1+1',
      coordinates: { latitude: -33.5, longitude: 151 },
    });
    const [cells] = cellsOf(spreadsheetSafeRecords(record));
    const at = (name: string) => cells![LOCATION_CSV_COLUMNS.indexOf(name)];
    expect([at('notes'), at('coordinates.latitude'), at('coordinates.longitude')]).toEqual(["'=1+1", '-33.5', '151']);
  });

  it.each([
    ['a record without its line break', 'a,b'],
    ['a record cut after a comma', 'a,'],
    ['a quoted cell never closed', '"a,b\r\n'],
    ['a quote inside a bare cell', 'a"b\r\n'],
  ])('given %s, when defused, then it is refused', (_, text) => {
    expect(() => spreadsheetSafeRecords(text)).toThrow('the text does not end with a whole CSV record');
  });

  it('given no text, when defused, then there is none', () => {
    expect(spreadsheetSafeRecords('')).toBe('');
  });
});
