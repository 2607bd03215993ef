import { z } from 'zod';

/** One broken rule as a user sees it; `field` is a dotted path such as `coordinates.latitude` or `customFields.foo[2]`, `''` for the value itself. */
export const validationIssueSchema = z.object({ field: z.string(), rule: z.string(), message: z.string() }).strict();
/** One broken rule as a user sees it. */
export type ValidationIssue = z.infer<typeof validationIssueSchema>;

/** The parsed value, or every issue found in it. */
export type ValidationResult<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

/** Shape rules that schemas report as custom zod issues (`.refine(check, { params: rule })`); `describeShapeRule` words them. */
export type ShapeRule =
  | { rule: 'nonEmpty' }
  | { rule: 'dateTime' }
  | { rule: 'date' }
  | { rule: 'countryCode' }
  | { rule: 'upperSnakeCase' }
  | { rule: 'url' }
  | { rule: 'finite' }
  | { rule: 'range'; min: number; max: number }
  | { rule: 'customFieldValue' }
  | { rule: 'customFieldItem' };

/** Parses `value` with `schema` and reports every issue with a readable message. */
export function validate<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, value: unknown): ValidationResult<T> {
  const nul = nulCharacterIssues(value, []);
  if (nul.length > 0) return { ok: false, issues: nul };
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, issues: toValidationIssues(parsed.error) };
}

/** The NUL character: PostgreSQL stores it in neither text nor jsonb, so no value that holds it is ever accepted. */
const NUL = '\u0000';

/** Every string (and object key) of a value that holds U+0000, each named by its path. */
function nulCharacterIssues(value: unknown, path: (string | number)[]): ValidationIssue[] {
  const issue = (at: (string | number)[]): ValidationIssue => {
    const field = formatPath(at);
    return {
      field,
      rule: 'noNulCharacter',
      message: `${field || 'value'} must not contain the NUL character (U+0000)`,
    };
  };
  if (typeof value === 'string') return value.includes(NUL) ? [issue(path)] : [];
  if (Array.isArray(value)) return value.flatMap((item: unknown, index) => nulCharacterIssues(item, [...path, index]));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) =>
    key.includes(NUL) ? [issue([...path, key])] : nulCharacterIssues(item, [...path, key]),
  );
}

/** Turns a zod error into user-facing issues; the one place where zod issue kinds get their wording. */
export function toValidationIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.flatMap(toIssues);
}

/** Formats a path as `a.b[2]`; keys that would make the dotted form ambiguous are quoted: `customFields["a.b"]`. */
export function formatPath(path: ReadonlyArray<string | number>): string {
  return path.reduce<string>((field, segment) => {
    if (typeof segment === 'number') return `${field}[${segment}]`;
    if (!PLAIN_KEY.test(segment)) return `${field}[${JSON.stringify(segment)}]`;
    return field === '' ? segment : `${field}.${segment}`;
  }, '');
}

// A key with a separator, a quote, blanks or a control character is quoted, so the path stays readable and unambiguous.
const PLAIN_KEY = /^[^.[\]"\s\u0000-\u001f]+$/;

const KINDS: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
};

function toIssues(issue: z.ZodIssue): ValidationIssue[] {
  const field = formatPath(issue.path);
  const subject = field === '' ? 'value' : field;
  const one = (rule: string, message: string): ValidationIssue[] => [{ field, rule, message }];

  switch (issue.code) {
    case z.ZodIssueCode.invalid_type:
      if (issue.received === 'undefined') return one('required', `${subject} is required`);
      if (issue.received === 'null') return one('notNull', `${subject} must not be null`);
      if (issue.received === 'nan') return one('finite', `${subject} must be a finite number`);
      return one('type', `${subject} must be ${KINDS[issue.expected] ?? issue.expected}`);
    case z.ZodIssueCode.unrecognized_keys:
      return issue.keys.map((key) => {
        const unknownField = formatPath([...issue.path, key]);
        return { field: unknownField, rule: 'unknownField', message: `unknown field "${unknownField}"` };
      });
    case z.ZodIssueCode.invalid_literal:
      return one('enum', `${subject} must be ${String(issue.expected)}`);
    case z.ZodIssueCode.invalid_enum_value:
    case z.ZodIssueCode.invalid_union_discriminator:
      return one('enum', `${subject} must be ${oneOf(issue.options)}`);
    case z.ZodIssueCode.invalid_string:
      if (issue.validation === 'uuid') return one('uuid', `${subject} must be a UUID`);
      return one('format', `${subject} has an invalid format`);
    case z.ZodIssueCode.too_small:
      return one(
        'min',
        `${subject} must ${sizeBound(issue.type, 'at least', 'more than', issue.inclusive, issue.minimum)}`,
      );
    case z.ZodIssueCode.too_big:
      return one(
        'max',
        `${subject} must ${sizeBound(issue.type, 'at most', 'less than', issue.inclusive, issue.maximum)}`,
      );
    case z.ZodIssueCode.not_finite:
      return one('finite', `${subject} must be a finite number`);
    case z.ZodIssueCode.custom: {
      const shapeRule = issue.params as ShapeRule | undefined;
      const description = shapeRule && describeShapeRule(shapeRule);
      return shapeRule && description
        ? one(shapeRule.rule, `${subject} ${description}`)
        : one('custom', `${subject} is invalid: ${issue.message}`);
    }
    default:
      return one(issue.code, `${subject} is invalid`);
  }
}

function oneOf(options: ReadonlyArray<unknown>): string {
  return options.length === 1 ? String(options[0]) : `one of ${options.map(String).join(', ')}`;
}

function sizeBound(
  type: string,
  inclusiveWord: string,
  exclusiveWord: string,
  inclusive: boolean,
  bound: unknown,
): string {
  const limit = `${inclusive ? inclusiveWord : exclusiveWord} ${String(bound)}`;
  const plural = bound === 1 ? '' : 's';
  if (type === 'string') return `be ${limit} character${plural} long`;
  if (type === 'array') return `contain ${limit} item${plural}`;
  return `be ${limit}`;
}

function describeShapeRule(shapeRule: ShapeRule): string | undefined {
  switch (shapeRule.rule) {
    case 'nonEmpty':
      return 'must not be empty';
    case 'dateTime':
      return 'must be an ISO 8601 UTC date-time ending in Z, like 2024-01-31T09:30:00Z';
    case 'date':
      return 'must be a calendar date in the form YYYY-MM-DD';
    case 'countryCode':
      return 'must be an ISO 3166-1 alpha-2 country code of two upper-case letters';
    case 'upperSnakeCase':
      return 'must be an UPPER_SNAKE_CASE value';
    case 'url':
      return 'must be an absolute http or https URL';
    case 'finite':
      return 'must be a finite number';
    case 'range':
      return `must be between ${shapeRule.min} and ${shapeRule.max}`;
    case 'customFieldValue':
      return 'must be a string, number, boolean or an array of those';
    case 'customFieldItem':
      return 'must be a string, number or boolean';
    default:
      return undefined;
  }
}
