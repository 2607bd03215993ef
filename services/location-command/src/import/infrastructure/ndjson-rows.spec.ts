import { ndjsonRows, wellFormed } from './ndjson-rows';
import type { ImportRow } from './import-row';

async function rowsOf(chunks: readonly string[], maxRowBytes = 1_000): Promise<ImportRow[]> {
  const rows: ImportRow[] = [];
  for await (const batch of ndjsonRows(
    (async function* () {
      for (const chunk of chunks) yield Buffer.from(chunk);
    })(),
    { maxRowBytes },
  )) {
    rows.push(...batch);
  }
  return rows;
}

describe('ndjsonRows', () => {
  it('given objects on lines with blank lines and CRLF, when read, then each object is a row with its line and id', async () => {
    expect(await rowsOf(['{"id":"a","n":1}\r\n\n  \n{"n":2}\n{"id":7}'])).toEqual([
      { line: 1, id: 'a', body: { id: 'a', n: 1 }, issues: [] },
      { line: 4, id: undefined, body: { n: 2 }, issues: [] },
      { line: 5, id: '7', body: { id: 7 }, issues: [] },
    ]);
  });

  it('given lines and multi-byte characters cut across chunks, when read, then they are put back together', async () => {
    const text = '{"id":"é😀"}\n{"id":"b"}\n';
    const bytes = Buffer.from(text);
    const rows: ImportRow[] = [];
    for await (const batch of ndjsonRows(
      (async function* () {
        for (const byte of bytes) yield Buffer.from([byte]);
      })(),
      { maxRowBytes: 100 },
    )) {
      rows.push(...batch);
    }
    expect(rows.map((row) => row.id)).toEqual(['é😀', 'b']);
  });

  it('given broken JSON, a non-object and an over-long line, when read, then each is a row with an issue and reading goes on', async () => {
    const rows = await rowsOf(['{"id":\n[1]\n', `{"id":"${'x'.repeat(30)}`, `${'y'.repeat(30)}"}\n{"id":"ok"}\n`], 40);
    expect(rows.map((row) => [row.line, row.issues.map((issue) => issue.rule)])).toEqual([
      [1, ['json']],
      [2, ['type']],
      [3, ['maxRowBytes']],
      [4, []],
    ]);
    expect(rows[2]!.issues[0]!.message).toBe('line is longer than 40 bytes');
  });
});

describe('wellFormed', () => {
  it('replaces lone surrogates with U+FFFD and keeps pairs and other text', () => {
    expect(wellFormed('a\uda1cb')).toBe('a\uFFFDb');
    expect(wellFormed('\udc00x\ud800')).toBe('\uFFFDx\uFFFD');
    expect(wellFormed('pair \ud83d\ude00 é')).toBe('pair \ud83d\ude00 é');
  });
});

describe('ndjsonRows, given a line that is not JSON and whose error message would cut a surrogate pair', () => {
  it('words the rejection in well-formed text (every character survives UTF-8)', async () => {
    // The line the API fuzzing found: V8's message quoted it up to half of a surrogate pair.
    const line = '\u{5f1f8}\u009cé\u008c\u008f\u008c=u\u{9adbe}w\u001efÝp\u{9904d}\u{b2e1e}';
    const [row] = await rowsOf([`${line}\n`]);
    const message = row!.issues[0]!.message;
    expect(message).toMatch(/^line is not valid JSON: /);
    expect(Buffer.from(message, 'utf8').toString('utf8')).toBe(message);
  });
});
