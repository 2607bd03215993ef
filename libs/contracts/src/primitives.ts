import { z } from './openapi/extend-zod';
import type { ShapeRule } from './validation';

const UTC_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?Z$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const COUNTRY_CODE = /^[A-Z]{2}$/;
const UPPER_SNAKE_CASE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/;

/** The calendar date as a pattern can state it (month 01–12, day 01–31); the check behind the schemas also rejects 02-30. */
const DOCUMENTED_DATE = '\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])';

const rule = (shapeRule: ShapeRule) => ({ params: shapeRule });

/** A string with at least one non-blank character; also used for optional strings, which are omitted rather than sent empty. */
export const nonEmptyStringSchema = z
  .string()
  .refine((value) => value.trim() !== '', rule({ rule: 'nonEmpty' }))
  .openapi({ minLength: 1, pattern: '\\S' });

/**
 * The textual form of an RFC 4122 UUID (any version, either case): the one pattern every layer checks ids with. It
 * accepts exactly what zod's `uuid()` accepts (a unit test holds them together).
 */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a value is a UUID in its textual form (see UUID_PATTERN). */
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID_PATTERN.test(value);

/** An RFC 4122 UUID in its textual form (any version, either case). */
export const uuidSchema = z.string().uuid();

/** An ISO 8601 UTC date-time with seconds and a `Z` suffix, fractional seconds allowed: `2024-01-31T09:30:00.123Z`. */
export const utcDateTimeSchema = z
  .string()
  .refine((value) => hasCalendarDate(UTC_DATE_TIME.exec(value)), rule({ rule: 'dateTime' }))
  .openapi({
    format: 'date-time',
    pattern: `^${DOCUMENTED_DATE}T([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(\\.\\d+)?Z$`,
    example: '2024-01-31T09:30:00Z',
  });

/** An ISO 8601 calendar date `YYYY-MM-DD` that exists (2024-02-29 yes, 2023-02-29 no). */
export const isoDateSchema = z
  .string()
  .refine((value) => hasCalendarDate(DATE.exec(value)), rule({ rule: 'date' }))
  .openapi({ format: 'date', pattern: `^${DOCUMENTED_DATE}$`, example: '2024-02-29' });

/** An ISO 3166-1 alpha-2 code by shape (two upper-case letters); the list of assigned codes is not checked. */
export const countryCodeSchema = z
  .string()
  .refine((value) => COUNTRY_CODE.test(value), rule({ rule: 'countryCode' }))
  .openapi({ pattern: COUNTRY_CODE.source, example: 'US' });

/** An UPPER_SNAKE_CASE token such as `UNDERGROUND_COMPLETE`, for enumerations whose full list is unpublished. */
export const upperSnakeCaseSchema = z
  .string()
  .refine((value) => UPPER_SNAKE_CASE.test(value), rule({ rule: 'upperSnakeCase' }))
  .openapi({ pattern: UPPER_SNAKE_CASE.source });

/** An absolute http or https URL. */
export const httpUrlSchema = z
  .string()
  .refine(isHttpUrl, rule({ rule: 'url' }))
  .openapi({ format: 'uri', pattern: '^https?://' });

/** A non-negative integer count. */
export const countSchema = z.number().int().min(0);

/** A finite number within [min, max]; one issue per value (not finite, or out of range). */
export function boundedNumberSchema(min: number, max: number) {
  return z
    .number()
    .superRefine((value, ctx) => {
      if (!Number.isFinite(value)) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, params: { rule: 'finite' } satisfies ShapeRule });
      } else if (value < min || value > max) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, params: { rule: 'range', min, max } satisfies ShapeRule });
      }
    })
    .openapi({ minimum: min, maximum: max });
}

/** True for an ISO 8601 calendar date `YYYY-MM-DD` that exists; the check behind `isoDateSchema`. */
export function isIsoDate(value: string): boolean {
  return hasCalendarDate(DATE.exec(value));
}

function hasCalendarDate(match: RegExpExecArray | null): boolean {
  if (match === null) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return daysInMonth !== undefined && day >= 1 && day <= daysInMonth;
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
