import type { z } from 'zod';
import { validate, type ValidationIssue } from '../validation';

/** A complete, valid Location using every field, for the contracts' own specs: the OpenAPI document's example. */
export { exampleLocation as sampleLocation } from '../openapi/examples';

/** The issues `schema` reports for `value`, or `[]` when it is valid. */
export function issuesOf(schema: z.ZodType<unknown, z.ZodTypeDef, unknown>, value: unknown): ValidationIssue[] {
  const result = validate(schema, value);
  return result.ok ? [] : result.issues;
}
