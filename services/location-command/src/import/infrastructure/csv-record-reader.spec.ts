import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { CsvRecordReader, CsvSyntaxError, type CsvRecord, type CsvRecordError } from './csv-record-reader';

type Item = CsvRecord | CsvRecordError;

/** Reads `chunks` as one input delivered in pieces. */
function read(chunks: readonly string[], maxRecordChars = 1_000_000): Item[] {
  const reader = new CsvRecordReader(maxRecordChars);
  return [...chunks.flatMap((chunk) => reader.push(chunk)), ...reader.end()];
}

const cellsOf = (items: Item[]) => items.map((item) => ('cells' in item ? item.cells : item));

describe('CsvRecordReader', () => {
  it('given plain, quoted and empty cells, when read, then each record has its cells and starting line', () => {
    const text = 'a,b,c\n"x, y","say ""hi""",\n\n"multi\nline",2,3\r\nlast,,';
    expect(read([text])).toEqual([
      { cells: ['a', 'b', 'c'], line: 1 },
      { cells: ['x, y', 'say "hi"', ''], line: 2 },
      { cells: ['multi\nline', '2', '3'], line: 4 },
      { cells: ['last', '', ''], line: 6 },
    ]);
  });

  it('given a byte order mark and CRLF line ends, when read, then the mark is dropped and CR is not part of a cell', () => {
    expect(cellsOf(read(['\uFEFFid,name\r\n1,"a"\r\n\r\n']))).toEqual([
      ['id', 'name'],
      ['1', 'a'],
    ]);
  });

  it('given a lone CR inside a cell, when read, then it is kept as text', () => {
    expect(cellsOf(read(['a\rb,c\n']))).toEqual([['a\rb', 'c']]);
  });

  it('given the same text cut at every position, when read in two chunks, then the records are the same', () => {
    const text = 'id,"q ""1"", x"\r\n2,"line\r\nbreak"\n\n3,\n"",""""\n';
    const whole = read([text]);
    for (let cut = 0; cut <= text.length; cut += 1) {
      expect(read([text.slice(0, cut), text.slice(cut)])).toEqual(whole);
    }
    expect(read(text.split(''))).toEqual(whole);
  });

  it('given 300 random records written by csv-stringify, when read, then the cells equal what csv-parse reads', () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 48_271) % 2_147_483_647;
      return seed / 2_147_483_647;
    };
    const pieces = ['a', 'Z', ' ', ',', '"', '\n', '\r\n', '\r', 'é', '😀', '1.5', ''];
    const records = Array.from({ length: 300 }, () =>
      Array.from({ length: 5 }, () =>
        Array.from({ length: Math.floor(next() * 6) }, () => pieces[Math.floor(next() * pieces.length)]).join(''),
      ),
    ).filter((cells) => cells.some((cell) => cell !== ''));
    const text = stringify(records, { quoted_match: /\r/ });
    const expected: string[][] = parse(text, { relax_column_count: true, skip_empty_lines: true });
    expect(expected).toEqual(records);
    const chunks = text.match(/[\s\S]{1,37}/g) ?? [];
    expect(cellsOf(read(chunks))).toEqual(expected);
  });

  it('given a stray quote in an unquoted cell or text after a closing quote, when read, then that record is an error and reading goes on', () => {
    expect(read(['a,b"c,d\n"x"y,z\nok,1\n'])).toEqual([
      { error: 'line 1: a quote inside an unquoted cell', line: 1 },
      { error: 'line 2: text follows a closing quote', line: 2 },
      { cells: ['ok', '1'], line: 3 },
    ]);
  });

  it('given a quote that never closes, when the input ends, then CsvSyntaxError names the line where the record starts', () => {
    const reader = new CsvRecordReader(1_000);
    expect(reader.push('a,b\n"open,\nmore\n')).toEqual([{ cells: ['a', 'b'], line: 1 }]);
    expect(() => reader.end()).toThrow(new CsvSyntaxError('a quoted cell is never closed', 2));
  });

  it('given a record longer than the limit, when pushed, then CsvSyntaxError ends the reading without buffering more', () => {
    const reader = new CsvRecordReader(10);
    expect(() => reader.push('"an open quote that goes on and on')).toThrow(CsvSyntaxError);
  });
});
