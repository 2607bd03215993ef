import { StringDecoder } from 'node:string_decoder';
import { csvHeaderIssues, csvRowToLocationInput } from '@lx/contracts';
import { CsvRecordReader, type CsvRecord, type CsvRecordError, CsvSyntaxError } from './csv-record-reader';
import { type ImportRow, ImportFileError, type RowReaderOptions } from './import-row';

/**
 * Reads CSV rows (RFC 4180, the export's flattened columns, a header row first) from a byte stream. A record that
 * cannot be read (wrong number of cells, a stray quote) is rejected with its line and reading goes on; a header that
 * is not the location layout, a quote that never closes or an over-long record ends the import, because nothing after
 * them can be trusted (an unclosed quote swallows the rest of the file, whose rows would then look missing).
 */
export async function* csvRows(
  source: AsyncIterable<Buffer | string>,
  options: RowReaderOptions,
): AsyncGenerator<ImportRow[]> {
  const reader = new CsvRecordReader(options.maxRowBytes);
  const decoder = new StringDecoder('utf8');
  let header: string[] | undefined;

  const rowsOf = (records: (CsvRecord | CsvRecordError)[]): ImportRow[] => {
    const rows: ImportRow[] = [];
    for (const record of records) {
      if ('error' in record) {
        rows.push(rejected(record.line, 'csv', record.error));
      } else if (header === undefined) {
        const issues = csvHeaderIssues(record.cells);
        if (issues.length > 0)
          throw new ImportFileError('the CSV header is not the location layout', record.line, issues);
        header = record.cells;
      } else if (record.cells.length !== header.length) {
        rows.push(
          rejected(
            record.line,
            'csv',
            `line ${record.line} has ${record.cells.length} cells, the header ${header.length}`,
          ),
        );
      } else {
        const keyed: Record<string, string> = {};
        for (let index = 0; index < header.length; index += 1) keyed[header[index]!] = record.cells[index]!;
        const { id, input, issues } = csvRowToLocationInput(keyed);
        rows.push({ line: record.line, id, body: input, issues });
      }
    }
    return rows;
  };

  try {
    for await (const data of source) {
      const rows = rowsOf(reader.push(typeof data === 'string' ? data : decoder.write(data)));
      if (rows.length > 0) yield rows;
    }
    const rows = rowsOf(reader.push(decoder.end()).concat(reader.end()));
    if (rows.length > 0) yield rows;
  } catch (error) {
    if (error instanceof CsvSyntaxError)
      throw new ImportFileError(`the CSV cannot be read on: ${error.message}`, error.line);
    if (error instanceof ImportFileError) throw error;
    throw new ImportFileError(`the request body could not be read: ${String(error)}`, undefined);
  }
}

function rejected(line: number, rule: string, message: string): ImportRow {
  return { line, id: undefined, body: undefined, issues: [{ field: '', rule, message }] };
}
