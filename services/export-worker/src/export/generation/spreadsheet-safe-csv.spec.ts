import { parse } from 'csv-parse/sync';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { LOCATION_CSV_COLUMNS, type Location, locationCsvRecord, spreadsheetSafeRecords } from '@lx/contracts';
import { aLocation } from '@lx/domain/testing';
import { ExportFileWriter } from './export-file';
import { SpreadsheetSafeCsv } from './spreadsheet-safe-csv';

const locations: Location[] = [
  aLocation({ id: '00000000-0000-4000-8000-000000000001', notes: '=HYPERLINK("http://x", "Zürich – 北京\r\n")' }),
  aLocation({
    id: '00000000-0000-4000-8000-000000000002',
    notes: '@SUM(1)',
    coordinates: { latitude: -33.8688, longitude: 151.2093 },
  }),
  aLocation({ id: '00000000-0000-4000-8000-000000000003', notes: 'plain' }),
];
const records = locations.map(locationCsvRecord).join('');

/** The snapshot cut into pieces of `size` bytes: records, quoted line breaks and multi-byte characters split. */
const pieces = (size: number, snapshot = records) => {
  const bytes = Buffer.from(snapshot, 'utf8');
  const chunks: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += size) chunks.push(bytes.subarray(start, start + size));
  return chunks;
};

async function defuse(chunks: readonly Buffer[]): Promise<string> {
  const out: Buffer[] = [];
  const cells = new SpreadsheetSafeCsv();
  cells.on('data', (chunk: Buffer) => out.push(chunk));
  await pipeline(Readable.from(chunks), cells);
  return Buffer.concat(out).toString('utf8');
}

describe('SpreadsheetSafeCsv', () => {
  it.each([1, 2, 3, 7, 64, 1 << 20])(
    'given the snapshot in chunks of %i bytes, when streamed, then it is every record defused once',
    async (size) => {
      const file = await defuse(pieces(size));
      expect(file).toBe(spreadsheetSafeRecords(records));
      const rows: string[][] = parse(file);
      const notes = rows.map((cells) => cells[LOCATION_CSV_COLUMNS.indexOf('notes')]);
      expect(notes).toEqual(['\'=HYPERLINK("http://x", "Zürich – 北京\r\n")', "'@SUM(1)", 'plain']);
    },
  );

  it('given the defused snapshot, when written as the file, then the locations are counted as in the exact file', async () => {
    const writer = new ExportFileWriter('csv', { exportTimestamp: '2024-03-01T10:00:00.000Z', totalCount: 3 });
    writer.resume();
    await pipeline(Readable.from(pieces(5)), new SpreadsheetSafeCsv(), writer);
    expect(writer.rows).toBe(3);
  });

  it('given a snapshot that ends inside a record, when streamed, then the unended bytes pass on as they are', async () => {
    const cut = records.slice(0, -10);
    const whole = records.slice(0, records.lastIndexOf('\r\n', records.length - 11) + 2);
    expect(await defuse(pieces(4, cut))).toBe(spreadsheetSafeRecords(whole) + cut.slice(whole.length));
  });

  it('given a snapshot that is not CSV records, when streamed, then the stream fails', async () => {
    await expect(defuse([Buffer.from('a,b\r\n"x"y\r\n')])).rejects.toThrow(
      'the text does not end with a whole CSV record',
    );
  });
});
