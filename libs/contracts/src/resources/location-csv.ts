import type { ValidationIssue } from '../validation';
import type { Location } from './location';

/** How a CSV cell encodes its field: as written, as a JSON number, or as a JSON document. */
type CellKind = 'string' | 'number' | 'json';

interface CsvColumn {
  readonly name: string;
  readonly path: readonly string[];
  readonly kind: CellKind;
}

const column = (name: string, kind: CellKind = 'string'): CsvColumn => ({ name, path: name.split('.'), kind });

const COLUMNS: readonly CsvColumn[] = [
  column('id'),
  column('createdAt'),
  column('updatedAt'),
  column('notes'),
  column('locationGroupId'),
  column('geography.country'),
  column('geography.region'),
  column('geography.locality'),
  column('geography.postalCode'),
  column('address.streetNumber'),
  column('address.streetName'),
  column('address.streetDirection'),
  column('address.streetType'),
  column('address.streetSuffix'),
  column('address.subunitType'),
  column('address.subunitIdentifier'),
  column('address.addressGroupId'),
  column('coordinates.latitude', 'number'),
  column('coordinates.longitude', 'number'),
  column('fiberAccessDetails.circuitId'),
  column('fiberAccessDetails.fda'),
  column('fiberAccessDetails.fdh'),
  column('fiberAccessDetails.splitterPort'),
  column('fiberAccessDetails.layer2AccessProtocol'),
  column('fiberAccessDetails.dropStatus'),
  column('fiberAccessDetails.serviceability.status'),
  column('fiberAccessDetails.serviceability.availableDate'),
  column('customFields', 'json'),
];

/**
 * The flattened CSV layout of a Location, shared by the CSV export and the bulk import: one column per leaf, named by
 * its dotted path, in this order; `customFields` is one column holding the custom fields as a JSON object. An empty
 * cell means the field is absent (OAF-100: absent optional fields are omitted, never sent empty).
 */
export const LOCATION_CSV_COLUMNS: readonly string[] = COLUMNS.map((csvColumn) => csvColumn.name);

/** Columns the server owns: an import reads `id` to address the location and ignores the timestamps. */
const SERVER_COLUMNS: ReadonlySet<string> = new Set(['id', 'createdAt', 'updatedAt']);

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** One CSV row of a Location, cells in LOCATION_CSV_COLUMNS order, ready for RFC 4180 quoting. */
export function locationToCsvRow(location: Location): string[] {
  return COLUMNS.map(({ path, kind }) => {
    const value = valueAt(location, path);
    if (value === undefined) return '';
    if (kind !== 'json' && (typeof value === 'string' || typeof value === 'number')) return String(value);
    return JSON.stringify(value);
  });
}

const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One RFC 4180 record with its CRLF line break: a cell holding a quote, comma, CR or LF is enclosed in double quotes
 * with each quote doubled; other cells are written as they are.
 */
export function csvRecord(cells: readonly string[]): string {
  return `${cells.map((cell) => (NEEDS_QUOTES.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell)).join(',')}\r\n`;
}

/**
 * A Location's CSV record, CRLF included: what the CSV export writes for it. The read model stores it beside the JSON
 * body, so an export copies both representations without parsing a location.
 */
export function locationCsvRecord(location: Location): string {
  return csvRecord(locationToCsvRow(location));
}

/**
 * The first characters with which a spreadsheet reads a cell as a formula (OWASP "CSV injection"): `=`, `+`, `-`, `@`,
 * tab and carriage return.
 */
export const SPREADSHEET_TRIGGERS: ReadonlySet<string> = new Set(['=', '+', '-', '@', '\t', '\r']);

/** One cell of a record as written (quoted or not), then what ends it: a comma or the CRLF. */
const RAW_CELL = /("(?:[^"]|"")*"|[^",\r\n]*)(,|\r\n)/y;

/**
 * One raw cell, defused for spreadsheets: a cell whose text begins with a formula trigger and is not a number gets a
 * leading apostrophe, which a spreadsheet shows as text and does not run; inside the quotes of a quoted cell. Numbers
 * (a negative coordinate) are left alone: a spreadsheet reads them as numbers, never as formulas.
 */
function spreadsheetSafeCell(raw: string): string {
  const quoted = raw.charAt(0) === '"';
  const first = quoted ? raw.charAt(1) : raw.charAt(0);
  if (!SPREADSHEET_TRIGGERS.has(first) || (!quoted && NUMBER.test(raw))) return raw;
  return quoted ? `"'${raw.slice(1)}` : `'${raw}`;
}

const NOT_WHOLE_RECORDS = 'the text does not end with a whole CSV record';

/**
 * Whole CRLF-terminated RFC 4180 records (as csvRecord writes them) with every cell defused for spreadsheets (see
 * spreadsheetSafeCell): the file of an export requested with `spreadsheetSafe`. Throws on text that is not such
 * records, or ends inside one.
 */
export function spreadsheetSafeRecords(records: string): string {
  const cells = new RegExp(RAW_CELL);
  let safe = '';
  while (cells.lastIndex < records.length) {
    const match = cells.exec(records);
    if (match === null) throw new Error(NOT_WHOLE_RECORDS);
    safe += spreadsheetSafeCell(match[1]!) + match[2]!;
  }
  // The last cell ended with a comma: its record is cut short.
  if (safe.endsWith(',')) throw new Error(NOT_WHOLE_RECORDS);
  return safe;
}

/** A CSV row decoded into the parts an import needs; the input is still to be validated by `@lx/domain`. */
export interface LocationCsvRecord {
  /** The `id` cell, `undefined` when empty. */
  id: string | undefined;
  /** The location body without id and timestamps: nested objects built from the dotted columns, empty cells left out. */
  input: Record<string, unknown>;
  /** Cells that cannot be decoded at all (customFields that is not JSON); empty when every cell decoded. */
  issues: ValidationIssue[];
}

/**
 * Decodes one CSV row keyed by column name (as a CSV parser with a header yields it). Coordinates that look like
 * numbers become numbers; anything else is kept as text, so the location rules name the field and the broken rule.
 * Columns missing from the row count as empty cells.
 */
export function csvRowToLocationInput(row: Readonly<Record<string, string | undefined>>): LocationCsvRecord {
  const input: Record<string, unknown> = {};
  const issues: ValidationIssue[] = [];
  for (const { name, path, kind } of COLUMNS) {
    const cell = row[name];
    if (SERVER_COLUMNS.has(name) || cell === undefined || cell === '') continue;
    if (kind === 'json') {
      const decoded = decodeJson(cell);
      if (decoded.ok) setAt(input, path, decoded.value);
      else issues.push({ field: name, rule: 'json', message: `${name} must be a JSON object` });
    } else {
      setAt(input, path, kind === 'number' && NUMBER.test(cell) ? Number(cell) : cell);
    }
  }
  return { id: row['id'] || undefined, input, issues };
}

/** What is wrong with a CSV header: unknown or repeated columns, or no `id` column. Other columns may be left out. */
export function csvHeaderIssues(header: readonly string[]): ValidationIssue[] {
  const known = new Set(LOCATION_CSV_COLUMNS);
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  for (const name of header) {
    if (!known.has(name)) issues.push({ field: name, rule: 'unknownColumn', message: `unknown column "${name}"` });
    else if (seen.has(name)) issues.push({ field: name, rule: 'duplicateColumn', message: `column "${name}" repeats` });
    seen.add(name);
  }
  if (!seen.has('id')) issues.push({ field: 'id', rule: 'required', message: 'column "id" is required' });
  return issues;
}

function valueAt(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function setAt(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let current = target;
  path.forEach((key, index) => {
    if (index === path.length - 1) {
      current[key] = value;
      return;
    }
    current[key] ??= {};
    current = current[key] as Record<string, unknown>;
  });
}

function decodeJson(cell: string): { ok: true; value: unknown } | { ok: false } {
  try {
    const value: unknown = JSON.parse(cell);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? { ok: true, value } : { ok: false };
  } catch {
    return { ok: false };
  }
}
