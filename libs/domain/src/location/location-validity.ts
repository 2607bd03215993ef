import {
  isRecord,
  isWellFormedLocationInput,
  locationInputSchema,
  validate,
  type LocationInput,
  type ValidationIssue,
} from '@lx/contracts';
import { ValidationFailedError, type ValidationErrorCode } from '../errors/domain-error';
import type { Result } from '../result';

/** The issue of a location with geography only: it needs an address, coordinates or both. */
export const MISSING_LOCATION_DATA_ISSUE: ValidationIssue = {
  field: '',
  rule: 'addressOrCoordinates',
  message: 'address or coordinates is required; a location with only geography is invalid',
};

/**
 * Checks an operator's location body: the contracts schema (shape, required fields, enums, ranges, custom field
 * types) plus the spec's cross-field rules. Every issue is collected, and the cross-field rules run on the raw input
 * even when the shape is broken, so one reply lists everything to fix.
 */
export function validateLocationInput(input: unknown): Result<LocationInput, ValidationFailedError> {
  // Bulk imports validate millions of rows: the hand-written twin of the schema accepts a well-formed body in about a
  // microsecond; anything it is not sure about goes through the schema, which also words the issues.
  if (isWellFormedLocationInput(input) && crossFieldIssues(input).length === 0) return { ok: true, value: input };
  const shape = validate(locationInputSchema, input);
  const issues = [...(shape.ok ? [] : shape.issues), ...crossFieldIssues(input)];
  if (shape.ok && issues.length === 0) return { ok: true, value: shape.value };
  return { ok: false, error: new ValidationFailedError(issues, errorCodeFor(issues)) };
}

function crossFieldIssues(input: unknown): ValidationIssue[] {
  if (!isRecord(input)) return [];
  const issues: ValidationIssue[] = [];
  if (input['address'] === undefined && input['coordinates'] === undefined) issues.push(MISSING_LOCATION_DATA_ISSUE);
  const address = input['address'];
  if (isRecord(address) && address['subunitType'] !== undefined && address['subunitIdentifier'] === undefined) {
    issues.push({
      field: 'address.subunitIdentifier',
      rule: 'requiredWith',
      message: 'address.subunitIdentifier is required when address.subunitType is present',
    });
  }
  return issues;
}

/**
 * The specific code when every issue points to the same one (MISSING_LOCATION_DATA, INVALID_COORDINATES for anything
 * under coordinates, INVALID_ADDRESS_FORMAT for anything under address); a mix of causes is VALIDATION_ERROR.
 * details.issues always names each field.
 */
function errorCodeFor(issues: ValidationIssue[]): ValidationErrorCode {
  const codes = new Set(issues.map(issueCode));
  const [only] = codes;
  return codes.size === 1 && only !== undefined ? only : 'VALIDATION_ERROR';
}

function issueCode(issue: ValidationIssue): ValidationErrorCode {
  if (issue.rule === MISSING_LOCATION_DATA_ISSUE.rule) return 'MISSING_LOCATION_DATA';
  if (isWithin(issue.field, 'coordinates')) return 'INVALID_COORDINATES';
  if (isWithin(issue.field, 'address')) return 'INVALID_ADDRESS_FORMAT';
  return 'VALIDATION_ERROR';
}

function isWithin(field: string, object: string): boolean {
  return field === object || field.startsWith(`${object}.`);
}
