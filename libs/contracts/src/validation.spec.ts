import { z } from 'zod';
import { issuesOf } from './testing/fixtures';
import { formatPath, toValidationIssues, validate, validationIssueSchema } from './validation';

describe('validate', () => {
  const schema = z
    .object({
      name: z.string(),
      count: z.number().int().min(1).max(10),
      kind: z.enum(['A', 'B']),
      fixed: z.literal('X'),
      tags: z.array(z.string()).min(1),
      nested: z.object({ id: z.string().uuid() }).strict().optional(),
    })
    .strict();
  const valid = { name: 'n', count: 3, kind: 'A', fixed: 'X', tags: ['t'] };

  it('given a valid value, when validated, then returns ok with the parsed value', () => {
    expect(validate(schema, valid)).toEqual({ ok: true, value: valid });
  });

  it('given a missing field, when validated, then says the field is required', () => {
    const { name: _omitted, ...withoutName } = valid;
    expect(issuesOf(schema, withoutName)).toEqual([{ field: 'name', rule: 'required', message: 'name is required' }]);
  });

  it('given null for a field, when validated, then says it must not be null', () => {
    expect(issuesOf(schema, { ...valid, nested: null })).toEqual([
      { field: 'nested', rule: 'notNull', message: 'nested must not be null' },
    ]);
  });

  it.each([
    ['name', 1, 'name must be a string'],
    ['count', 'three', 'count must be a number'],
    ['count', 2.5, 'count must be an integer'],
    ['tags', 'x', 'tags must be an array'],
    ['nested', [], 'nested must be an object'],
  ])('given %s = %p, when validated, then reports "%s"', (field, value, message) => {
    expect(issuesOf(schema, { ...valid, [field]: value })).toEqual([{ field, rule: 'type', message }]);
  });

  it('given NaN for a number, when validated, then says it must be a finite number', () => {
    expect(issuesOf(schema, { ...valid, count: Number.NaN })).toEqual([
      { field: 'count', rule: 'finite', message: 'count must be a finite number' },
    ]);
  });

  it('given a value outside an enum, when validated, then lists the allowed values', () => {
    expect(issuesOf(schema, { ...valid, kind: 'C' })).toEqual([
      { field: 'kind', rule: 'enum', message: 'kind must be one of A, B' },
    ]);
  });

  it('given a wrong literal, when validated, then names the only allowed value', () => {
    expect(issuesOf(schema, { ...valid, fixed: 'Y' })).toEqual([
      { field: 'fixed', rule: 'enum', message: 'fixed must be X' },
    ]);
  });

  it('given numbers and arrays beyond their bounds, when validated, then states the bound', () => {
    expect(issuesOf(schema, { ...valid, count: 11, tags: [] })).toEqual([
      { field: 'count', rule: 'max', message: 'count must be at most 10' },
      { field: 'tags', rule: 'min', message: 'tags must contain at least 1 item' },
    ]);
  });

  it('given unknown fields at the root and nested, when validated, then names each one', () => {
    const id = '0b6f4f8e-3c1a-4b8e-9d5e-2a7c1f0e9b11';
    expect(issuesOf(schema, { ...valid, foo: 1, bar: 2, nested: { id, baz: 3 } })).toEqual([
      { field: 'nested.baz', rule: 'unknownField', message: 'unknown field "nested.baz"' },
      { field: 'foo', rule: 'unknownField', message: 'unknown field "foo"' },
      { field: 'bar', rule: 'unknownField', message: 'unknown field "bar"' },
    ]);
  });

  it('given a malformed UUID, when validated, then says it must be a UUID', () => {
    expect(issuesOf(schema, { ...valid, nested: { id: 'abc' } })).toEqual([
      { field: 'nested.id', rule: 'uuid', message: 'nested.id must be a UUID' },
    ]);
  });

  it('given several broken rules, when validated, then reports all of them', () => {
    expect(issuesOf(schema, { count: 0, kind: 'Z', fixed: 'X', tags: ['t'] }).map((issue) => issue.field)).toEqual([
      'name',
      'count',
      'kind',
    ]);
  });

  it('given a non-object where an object is expected, when validated, then speaks of the value itself', () => {
    expect(issuesOf(schema, 'text')).toEqual([{ field: '', rule: 'type', message: 'value must be an object' }]);
  });

  it('given a refinement without a shape rule, when validated, then keeps its own message', () => {
    const even = z.number().refine((n) => n % 2 === 0, 'not even');
    expect(issuesOf(even, 3)).toEqual([{ field: '', rule: 'custom', message: 'value is invalid: not even' }]);
  });

  it('given a refinement with a rule no wording exists for, when validated, then keeps its own message', () => {
    const odd = z.number().refine((n) => n % 2 === 1, { message: 'not odd', params: { rule: 'odd' } });
    expect(issuesOf(odd, 2)).toEqual([{ field: '', rule: 'custom', message: 'value is invalid: not odd' }]);
  });

  it('given a string for a boolean, when validated, then says it must be a boolean', () => {
    expect(issuesOf(z.object({ flag: z.boolean() }), { flag: 'yes' })).toEqual([
      { field: 'flag', rule: 'type', message: 'flag must be a boolean' },
    ]);
  });

  it.each<[string, z.ZodTypeAny, unknown, string, string]>([
    ['a string shorter than 1', z.string().min(1), '', 'min', 'value must be at least 1 character long'],
    ['a string shorter than 2', z.string().min(2), 'a', 'min', 'value must be at least 2 characters long'],
    ['a string longer than 1', z.string().max(1), 'ab', 'max', 'value must be at most 1 character long'],
    ['a string longer than 3', z.string().max(3), 'abcd', 'max', 'value must be at most 3 characters long'],
    ['an array longer than 2', z.array(z.number()).max(2), [1, 2, 3], 'max', 'value must contain at most 2 items'],
    ['a number not more than 0', z.number().gt(0), 0, 'min', 'value must be more than 0'],
    ['a number not less than 10', z.number().lt(10), 10, 'max', 'value must be less than 10'],
    ['a number of at least 1 below it', z.number().min(1), 0, 'min', 'value must be at least 1'],
    ['an infinite number', z.number().finite(), Number.POSITIVE_INFINITY, 'finite', 'value must be a finite number'],
    ['a number that is no multiple of 5', z.number().multipleOf(5), 7, 'not_multiple_of', 'value is invalid'],
  ])('given %s, when validated, then the issue states it', (_case, bounded, value, rule, message) => {
    expect(issuesOf(bounded, value)).toEqual([{ field: '', rule, message }]);
  });
});

describe('validationIssueSchema', () => {
  it('given an issue as validate reports it, when parsed, then it is accepted as it is', () => {
    const issue = { field: 'count', rule: 'max', message: 'count must be at most 10' };
    expect(validationIssueSchema.parse(issue)).toEqual(issue);
  });

  it('given an issue with a missing or an extra member, when parsed, then it is rejected', () => {
    expect(validationIssueSchema.safeParse({ field: 'count', rule: 'max' }).success).toBe(false);
    expect(validationIssueSchema.safeParse({ field: 'count', rule: 'max', message: 'm', detail: 'x' }).success).toBe(
      false,
    );
  });
});

describe('formatPath', () => {
  it.each([
    [[], ''],
    [['coordinates', 'latitude'], 'coordinates.latitude'],
    [['customFields', 'foo', 2], 'customFields.foo[2]'],
    [['customFields', 'a.b'], 'customFields["a.b"]'],
    [['customFields', 'two words'], 'customFields["two words"]'],
    [['customFields', ''], 'customFields[""]'],
  ])('given the path %p, when formatted, then reads %p', (path, field) => {
    expect(formatPath(path)).toBe(field);
  });
});

describe('toValidationIssues', () => {
  it('given a zod error, when converted, then yields the same issues validate reports', () => {
    const parsed = z.object({ a: z.string() }).safeParse({});
    expect(parsed.success).toBe(false);
    if (!parsed.success) {
      expect(toValidationIssues(parsed.error)).toEqual([{ field: 'a', rule: 'required', message: 'a is required' }]);
    }
  });
});

describe('validate, given the NUL character (which PostgreSQL stores in neither text nor jsonb)', () => {
  const schema = z.record(z.string(), z.unknown());

  it('refuses it in any string or key, naming each place, before the schema runs', () => {
    expect(issuesOf(schema, { a: 'x\u0000', b: ['ok', '\u0000'], c: { d: 1, 'e\u0000': 2 } })).toEqual([
      { field: 'a', rule: 'noNulCharacter', message: 'a must not contain the NUL character (U+0000)' },
      { field: 'b[1]', rule: 'noNulCharacter', message: 'b[1] must not contain the NUL character (U+0000)' },
      {
        field: 'c["e\\u0000"]',
        rule: 'noNulCharacter',
        message: 'c["e\\u0000"] must not contain the NUL character (U+0000)',
      },
    ]);
    expect(issuesOf(z.string(), '\u0000')).toEqual([
      { field: '', rule: 'noNulCharacter', message: 'value must not contain the NUL character (U+0000)' },
    ]);
  });

  it('accepts every other character, other control characters included', () => {
    expect(validate(schema, { a: 'tab\there \u0001 \uFFFF', n: null, k: 1 })).toEqual({
      ok: true,
      value: { a: 'tab\there \u0001 \uFFFF', n: null, k: 1 },
    });
  });
});
