import { ExportFileScanner, type ExportFileItem } from './export-file.reader';

const FILE =
  '{"exportTimestamp":"2026-11-27T06:00:00.000Z","totalCount":2,"locations":[' +
  '{"id":"a","name":"x \\" ] } [ { , : y","nested":{"list":[1,{"k":"}"}]},"version":3},' +
  '{"id":"b","text":"é ünïcödé 💡","version":1}],' +
  '"locationGroups":[{"id":"g","name":"G","type":"T","version":2}],' +
  '"addressGroups":[{"id":"h","name":"H","type":"T","deletedAt":"2026-11-26T00:00:00.000Z","version":4}],' +
  '"later":{"unknown":[{"id":"z"}]}}';

function scan(chunks: Buffer[]): ExportFileItem[] {
  const scanner = new ExportFileScanner();
  return [...chunks.flatMap((chunk) => scanner.push(chunk)), ...scanner.end()];
}

describe('ExportFileScanner', () => {
  const whole = Buffer.from(FILE);
  const expected: ExportFileItem[] = [
    { kind: 'header', exportTimestamp: '2026-11-27T06:00:00.000Z', totalCount: 2 },
    { kind: 'location', value: JSON.parse(FILE).locations[0] },
    { kind: 'location', value: JSON.parse(FILE).locations[1] },
    { kind: 'locationGroup', value: JSON.parse(FILE).locationGroups[0] },
    { kind: 'addressGroup', value: JSON.parse(FILE).addressGroups[0] },
  ];

  it('yields the header, then every element of the three arrays, skipping unknown keys', () => {
    expect(scan([whole])).toEqual(expected);
  });

  it('gives the same items however the bytes are split, inside strings and multi-byte characters alike', () => {
    for (let cut = 1; cut < whole.length; cut++) {
      expect(scan([whole.subarray(0, cut), whole.subarray(cut)])).toEqual(expected);
    }
    expect(scan([...whole].map((byte) => Buffer.from([byte])))).toEqual(expected);
  });

  it('reads a file without group arrays, and one with no location', () => {
    expect(scan([Buffer.from('{"exportTimestamp":"t","totalCount":0,"locations":[]}')])).toEqual([
      { kind: 'header', exportTimestamp: 't', totalCount: 0 },
    ]);
    expect(scan([Buffer.from('{ "totalCount" : 0 , "exportTimestamp" : "t" }')])).toEqual([
      { kind: 'header', exportTimestamp: 't', totalCount: 0 },
    ]);
  });

  it('refuses a truncated file and one without its header fields', () => {
    expect(() => scan([whole.subarray(0, whole.length - 5)])).toThrow(/truncated/);
    expect(() => scan([Buffer.from('{"locations":[]}')])).toThrow(/exportTimestamp and totalCount/);
  });
});
