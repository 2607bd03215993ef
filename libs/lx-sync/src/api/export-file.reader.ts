/** What a JSON export file holds, item by item, in file order. */
export type ExportFileItem =
  | { readonly kind: 'header'; readonly exportTimestamp: string; readonly totalCount: number }
  | { readonly kind: 'location' | 'locationGroup' | 'addressGroup'; readonly value: ExportedItem };

/** A location or group of an export with `includeVersions`: its fields and, last, its version. */
export type ExportedItem = Record<string, unknown> & { id: string; version?: number; deletedAt?: string };

const ARRAYS: Record<string, 'location' | 'locationGroup' | 'addressGroup'> = {
  locations: 'location',
  locationGroups: 'locationGroup',
  addressGroups: 'addressGroup',
};

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/**
 * Reads an export file of any size in constant memory: it scans the bytes (an export is one line of JSON, so lines
 * cannot split it) and parses one array element at a time. The file's shape is
 * `{"exportTimestamp","totalCount","locations":[…],"locationGroups":[…],"addressGroups":[…]}`; keys it does not
 * know are skipped, so additive fields of later releases do no harm.
 */
export class ExportFileScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** At depth 1: the next string is a key (else a value). */
  private expectKey = false;
  private key: string | undefined;
  /** The array being read (at depth 2), if one of ARRAYS. */
  private array: (typeof ARRAYS)[string] | undefined;
  private capture: { kind: 'key' | 'scalar' | 'element'; parts: Buffer[]; start: number } | undefined;
  private readonly scalars: Record<string, unknown> = {};
  private headerSent = false;

  /** The items the chunk completes. */
  push(chunk: Buffer): ExportFileItem[] {
    const items: ExportFileItem[] = [];
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) {
          this.inString = false;
          if (this.capture?.kind === 'key') this.key = JSON.parse(this.endCapture(chunk, i + 1)) as string;
        }
        continue;
      }
      switch (byte) {
        case QUOTE:
          this.inString = true;
          if (this.depth === 1 && this.expectKey) this.startCapture('key', i);
          else if (this.depth === 1 && this.capture === undefined) this.startCapture('scalar', i);
          break;
        case COLON:
          if (this.depth === 1) this.expectKey = false;
          break;
        case COMMA:
          if (this.depth === 1) {
            this.endScalar(chunk, i);
            this.expectKey = true;
          }
          break;
        case OPEN_OBJECT:
        case OPEN_ARRAY:
          this.depth++;
          if (this.depth === 1) this.expectKey = true;
          else if (this.depth === 2 && byte === OPEN_ARRAY) {
            this.array = this.key === undefined ? undefined : ARRAYS[this.key];
            if (!this.headerSent) items.push(this.header());
          } else if (this.depth === 3 && byte === OPEN_OBJECT && this.array !== undefined) {
            this.startCapture('element', i);
          }
          break;
        case CLOSE_OBJECT:
        case CLOSE_ARRAY:
          if (this.depth === 3 && byte === CLOSE_OBJECT && this.capture?.kind === 'element') {
            items.push({ kind: this.array!, value: JSON.parse(this.endCapture(chunk, i + 1)) as ExportedItem });
          } else if (this.depth === 1) {
            this.endScalar(chunk, i);
          } else if (this.depth === 2) {
            this.array = undefined;
          }
          this.depth--;
          break;
        default:
          if (this.depth === 1 && !this.expectKey && this.capture === undefined && !isSpace(byte)) {
            this.startCapture('scalar', i);
          }
      }
    }
    if (this.capture !== undefined) {
      this.capture.parts.push(chunk.subarray(this.capture.start));
      this.capture.start = 0;
    }
    return items;
  }

  /** Fails unless the file ended where a JSON document ends; the header, if the file held no array. */
  end(): ExportFileItem[] {
    if (this.depth !== 0 || this.inString) throw new Error('the export file ended before its end (truncated?)');
    return this.headerSent ? [] : [this.header()];
  }

  private header(): ExportFileItem {
    this.headerSent = true;
    const { exportTimestamp, totalCount } = this.scalars;
    if (typeof exportTimestamp !== 'string' || typeof totalCount !== 'number') {
      throw new Error('the export file does not start with exportTimestamp and totalCount');
    }
    return { kind: 'header', exportTimestamp, totalCount };
  }

  private startCapture(kind: 'key' | 'scalar' | 'element', start: number): void {
    this.capture = { kind, parts: [], start };
  }

  private endCapture(chunk: Buffer, end: number): string {
    const capture = this.capture!;
    capture.parts.push(chunk.subarray(capture.start, end));
    this.capture = undefined;
    return Buffer.concat(capture.parts).toString('utf8');
  }

  private endScalar(chunk: Buffer, end: number): void {
    if (this.capture?.kind !== 'scalar') return;
    const text = this.endCapture(chunk, end).trim();
    if (this.key !== undefined) this.scalars[this.key] = JSON.parse(text);
  }
}

/** The items of an export file, read from a stream of its bytes. */
export async function* readExportFile(bytes: AsyncIterable<Buffer>): AsyncGenerator<ExportFileItem> {
  const scanner = new ExportFileScanner();
  for await (const chunk of bytes) yield* scanner.push(chunk);
  yield* scanner.end();
}
