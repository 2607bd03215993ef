import { parse } from 'csv-parse/sync';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { csvRowToLocationInput, LOCATION_CSV_COLUMNS, type Location, locationCsvRecord } from '@lx/contracts';
import { aLocation } from '@lx/domain/testing';
import { Digest, type ExportFileHeader, ExportFileWriter } from './export-file';

const header = { exportTimestamp: '2024-03-01T10:00:00.000Z', totalCount: 2 };
const locations: Location[] = [
  aLocation({ id: '00000000-0000-4000-8000-000000000001', notes: 'Zürich – 北京 "q", a\nb' }),
  aLocation({ id: '00000000-0000-4000-8000-000000000002', address: undefined, customFields: { tags: ['x', 1] } }),
];
const ndjson = locations.map((location) => `${JSON.stringify(location)}\n`).join('');
/** The CSV snapshot of the same locations: the first record holds a quoted line break, doubled quotes and a comma. */
const records = locations.map(locationCsvRecord).join('');

/** Runs the writer over `chunks` and returns the file. */
async function write(
  format: 'json' | 'csv',
  chunks: readonly Buffer[],
  fileHeader: ExportFileHeader = header,
): Promise<string> {
  const out: Buffer[] = [];
  const writer = new ExportFileWriter(format, fileHeader);
  writer.on('data', (chunk: Buffer) => out.push(chunk));
  await pipeline(Readable.from(chunks), writer);
  return Buffer.concat(out).toString('utf8');
}

/** A snapshot cut into pieces of `size` bytes: lines and multi-byte characters split across chunks. */
const pieces = (size: number, snapshot = ndjson) => {
  const bytes = Buffer.from(snapshot, 'utf8');
  const chunks: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += size) chunks.push(bytes.subarray(start, start + size));
  return chunks;
};

describe('ExportFileWriter', () => {
  it.each([1, 7, 1 << 20])('json, in chunks of %i bytes: the OAF-100 file with every line verbatim', async (size) => {
    const file = await write('json', pieces(size));
    expect(JSON.parse(file)).toEqual({ ...header, locations });
    expect(file.startsWith('{"exportTimestamp":"2024-03-01T10:00:00.000Z","totalCount":2,"locations":[{')).toBe(true);
  });

  it('json: hands on the snapshot chunk itself, its LFs made commas, rather than a copy of it', async () => {
    const chunk = Buffer.from(ndjson, 'utf8');
    const out: Buffer[] = [];
    const writer = new ExportFileWriter('json', header);
    writer.on('data', (piece: Buffer) => out.push(piece));
    await pipeline(Readable.from([chunk]), writer);
    // The opening, then the chunk's bytes without the last LF: the same memory, not a new buffer.
    expect(out[1]!.buffer).toBe(chunk.buffer);
    expect(out[1]!.byteOffset).toBe(chunk.byteOffset);
    expect(Buffer.concat(out).toString('utf8')).toBe(
      `{"exportTimestamp":"2024-03-01T10:00:00.000Z","totalCount":2,"locations":[${locations.map((location) => JSON.stringify(location)).join(',')}]}`,
    );
  });

  describe('json with groups', () => {
    const locationGroups = [
      { id: '00000000-0000-4000-8000-00000000000a', name: 'Phase "1" – Zürich', type: 'OTHER' },
      {
        id: '00000000-0000-4000-8000-00000000000b',
        name: 'gone',
        type: 'OTHER',
        deletedAt: '2024-02-29T08:00:00.000Z',
      },
    ];
    const addressGroups = [{ id: '00000000-0000-4000-8000-00000000000c', name: 'Tower 北', type: 'MDU_COMPLEX' }];
    const lines = (items: readonly object[]) => items.map((item) => `${JSON.stringify(item)}\n`).join('');
    const withGroups = (counts: { locationGroups: number; addressGroups: number }, total = 2) => ({
      ...header,
      totalCount: total,
      groupCounts: counts,
    });

    it.each([1, 7, 1 << 20])(
      'in chunks of %i bytes: the locations, then both group arrays, every line verbatim',
      async (size) => {
        const snapshot = ndjson + lines(locationGroups) + lines(addressGroups);
        const fileHeader = withGroups({ locationGroups: 2, addressGroups: 1 });
        const writer = new ExportFileWriter('json', fileHeader);
        const out: Buffer[] = [];
        writer.on('data', (chunk: Buffer) => out.push(chunk));
        await pipeline(Readable.from(pieces(size, snapshot)), writer);
        const file = Buffer.concat(out).toString('utf8');
        expect(JSON.parse(file)).toEqual({ ...header, locations, locationGroups, addressGroups });
        expect(file.endsWith(`${JSON.stringify(addressGroups[0])}]}`)).toBe(true);
        expect(writer.rows).toBe(2);
      },
    );

    it.each([
      [{ locationGroups: 0, addressGroups: 0 }, [], []],
      [{ locationGroups: 2, addressGroups: 0 }, locationGroups, []],
      [{ locationGroups: 0, addressGroups: 1 }, [], addressGroups],
    ])('given group counts %j, then the empty arrays are written too', async (counts, own, address) => {
      for (const total of [0, 2]) {
        const snapshot = (total === 0 ? '' : ndjson) + lines(own) + lines(address);
        for (const size of [1, 1 << 20]) {
          const file = await write('json', pieces(size, snapshot), withGroups(counts, total));
          expect(JSON.parse(file)).toEqual({
            ...header,
            totalCount: total,
            locations: total === 0 ? [] : locations,
            locationGroups: own,
            addressGroups: address,
          });
        }
      }
    });

    it('fails when the snapshot holds fewer or more group lines than announced', async () => {
      const snapshot = ndjson + lines(locationGroups) + lines(addressGroups);
      await expect(
        write('json', [Buffer.from(snapshot)], withGroups({ locationGroups: 2, addressGroups: 2 })),
      ).rejects.toThrow('the snapshot announced 2 address groups and held 1');
      await expect(
        write('json', [Buffer.from(snapshot)], withGroups({ locationGroups: 1, addressGroups: 1 })),
      ).rejects.toThrow('the snapshot announced 1 address groups and held 2');
      await expect(
        write('json', [Buffer.from(ndjson)], withGroups({ locationGroups: 1, addressGroups: 0 })),
      ).rejects.toThrow('the snapshot announced 1 location groups and held 0');
    });
  });

  it.each([1, 7, 1 << 20])('csv, in chunks of %i bytes: the header row, then one record per location', async (size) => {
    const file = await write('csv', pieces(size, records));
    expect(file).toBe(`${LOCATION_CSV_COLUMNS.join(',')}\r\n${records}`);
    const [columns, ...rows] = parse(file);
    expect(columns).toEqual(LOCATION_CSV_COLUMNS);
    expect(
      rows.map((cells) => csvRowToLocationInput(Object.fromEntries(columns!.map((n, i) => [n, cells[i]!]))).id),
    ).toEqual(locations.map((location) => location.id));
    expect(rows[0]![LOCATION_CSV_COLUMNS.indexOf('notes')]).toBe('Zürich – 北京 "q", a\nb');
  });

  it('an empty snapshot: an empty list, or the header row alone', async () => {
    const empty = { ...header, totalCount: 0 };
    expect(JSON.parse(await write('json', [], empty))).toEqual({ ...empty, locations: [] });
    expect(await write('csv', [], empty)).toBe(`${LOCATION_CSV_COLUMNS.join(',')}\r\n`);
  });

  it.each([
    ['json', ndjson],
    ['csv', records],
  ] as const)(
    '%s: counts the locations, a line break inside a quoted CSV cell not among them',
    async (format, snapshot) => {
      for (const size of [1, 2, 3, 1 << 20]) {
        const writer = new ExportFileWriter(format, header);
        writer.resume();
        await pipeline(Readable.from(pieces(size, snapshot)), writer);
        expect(writer.rows).toBe(2);
      }
    },
  );

  it('csv: doubled quotes and quoted line breaks split across chunks keep the count right', async () => {
    const tricky = 'a,"x""\r\ny""",b\r\n"",c\r\n';
    for (const size of [1, 2, 5, 6, 7, 100]) {
      const writer = new ExportFileWriter('csv', header);
      writer.resume();
      await pipeline(Readable.from(pieces(size, tricky)), writer);
      expect(writer.rows).toBe(2);
    }
  });

  it('fails when the snapshot holds fewer or more locations than announced', async () => {
    await expect(write('json', [Buffer.from(ndjson)], { ...header, totalCount: 3 })).rejects.toThrow(
      'the snapshot announced 3 locations and held 2',
    );
    await expect(write('csv', [Buffer.from(records)], { ...header, totalCount: 1 })).rejects.toThrow(
      'the snapshot announced 1 locations and held 2',
    );
  });

  it.each([
    ['json', ndjson],
    ['csv', records],
  ] as const)('%s: fails when the snapshot ends in the middle of a location', async (format, snapshot) => {
    await expect(write(format, [Buffer.from(snapshot.slice(0, -5))])).rejects.toThrow('in the middle of a location');
  });

  it('csv: fails when the snapshot ends inside a quoted cell, even right after a line break', async () => {
    await expect(write('csv', [Buffer.from('a,"b\r\n')], { ...header, totalCount: 0 })).rejects.toThrow(
      'in the middle of a location',
    );
  });

  it('json: fails on an empty line rather than writing an empty element', async () => {
    await expect(write('json', [Buffer.from(`${JSON.stringify(locations[0])}\n\n`)])).rejects.toThrow(
      'the snapshot holds an empty line',
    );
  });
});

describe('Digest', () => {
  it('passes the bytes through and measures their SHA-256 and size', async () => {
    const digest = new Digest();
    const out: Buffer[] = [];
    digest.on('data', (chunk: Buffer) => out.push(chunk));
    await pipeline(Readable.from([Buffer.from('abc'), 'déf']), digest);
    const bytes = Buffer.concat(out);
    expect(bytes.toString('utf8')).toBe('abcdéf');
    expect(digest.sizeBytes).toBe(bytes.length);
    expect(digest.hex()).toBe(createHash('sha256').update(bytes).digest('hex'));
  });
});
