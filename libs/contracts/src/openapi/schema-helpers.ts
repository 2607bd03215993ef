import { locationSchema } from '../resources/location';
import { LOCATION_CSV_COLUMNS } from '../resources/location-csv';
import { z } from './extend-zod';

/**
 * The option of a discriminated union for one value of its discriminator, to name it on its own: named options make
 * the union a `oneOf` of references with a `discriminator` (references.ts), which generators turn into one type each.
 */
export function variantOf(
  union: z.ZodDiscriminatedUnion<string, z.ZodDiscriminatedUnionOption<string>[]>,
  value: string,
): z.AnyZodObject {
  const option = union.optionsMap.get(value);
  if (option === undefined) throw new Error(`the union has no option with ${union.discriminator} ${value}`);
  return option;
}

/** Whether every step of a dotted Location path is required, so that the CSV cell is never empty. */
function isRequiredPath(path: string[]): boolean {
  let shape = locationSchema.shape as z.ZodRawShape;
  for (const key of path) {
    const field = shape[key];
    if (field === undefined || field.isOptional()) return false;
    if (field instanceof z.ZodObject) shape = (field as z.AnyZodObject).shape as z.ZodRawShape;
  }
  return true;
}

/**
 * One record of a CSV export, as an object keyed by the header row's column names (LOCATION_CSV_COLUMNS, the columns
 * the export writes and the import reads): what a CSV reader that maps records by the header gives.
 */
export function csvExportRecordSchema(): z.AnyZodObject {
  const columns = LOCATION_CSV_COLUMNS.map((column) => {
    const cell = z.string();
    return [column, isRequiredPath(column.split('.')) ? cell : cell.optional()] as const;
  });
  return z.object(Object.fromEntries(columns)).openapi({
    description:
      'The file of a `csv` export (`text/csv; charset=utf-8`, RFC 4180, CRLF line breaks), as downloaded from ' +
      `exportUrl: a header row naming the columns in this order: ${LOCATION_CSV_COLUMNS.join(', ')}; then one record ` +
      'per location. A column is the Location field at that dotted path; an empty cell means the field is absent. ' +
      'Coordinates are decimal numbers, `customFields` one JSON object, everything else as in the Location.',
  });
}
