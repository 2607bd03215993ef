import { exportNotificationSchema, exportStatusReplySchema, type ValidationIssue } from '@lx/contracts';
import { ValidationFailedError } from '../errors/domain-error';
import type { Result } from '../result';
import {
  canonicalExportRequest,
  exportFilename,
  exportNotificationOf,
  exportObjectKey,
  exportFailureMessage,
  exportRetryDelaySeconds,
  exportStatusReplyOf,
  type ExportFile,
  type ExportRequest,
  fileOptionsOf,
  parseExportRequest,
  selectionOf,
} from './export-request';

const requestId = '9e8d7c6b-5a4f-4e3d-9c2b-1a0f9e8d7c6b';
const groupId = '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50';
const now = new Date('2024-03-01T10:00:00.000Z');

const dateTimeMessage = 'modifiedSince must be an ISO 8601 UTC date-time ending in Z, like 2024-01-31T09:30:00Z';
const futureIssue: ValidationIssue = {
  field: 'modifiedSince',
  rule: 'notInFuture',
  message: 'modifiedSince must not be in the future',
};

function failure<T>(result: Result<T, ValidationFailedError>): ValidationFailedError {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`);
  expect(result.error).toBeInstanceOf(ValidationFailedError);
  return result.error;
}

function value<T>(result: Result<T, ValidationFailedError>): T {
  if (!result.ok) throw new Error(`expected a value, got ${result.error.message}`);
  return result.value;
}

const file: ExportFile = {
  exportUrl: 'https://exports.example.com/9e8d7c6b.json?X-Amz-Signature=abc',
  downloadExpiresAt: '2024-03-02T10:00:00Z',
  exportTimestamp: '2024-03-01T10:05:00Z',
  totalCount: 1250,
  sha256: 'a'.repeat(64),
  sizeBytes: 48_213,
  objectKey: 'exports/9e8d7c6b.json',
  fileExpiresAt: '2024-03-08T10:05:00Z',
};

const failedError = { code: 'EXPORT_GENERATION_FAILED', message: 'the export could not be generated' } as const;

function request(overrides: Partial<ExportRequest> = {}): ExportRequest {
  return {
    id: requestId,
    clientId: 'rsp-client',
    format: 'json',
    createdAt: '2024-03-01T10:00:00Z',
    status: 'PENDING',
    attempts: 0,
    progress: { written: 0 },
    ...overrides,
  };
}

describe('parseExportRequest', () => {
  it.each([
    [{ format: 'json' }],
    [{ format: 'csv' }],
    [{ format: 'json', modifiedSince: '2024-02-01T00:00:00Z' }],
    [{ format: 'csv', modifiedSince: '2024-02-29T23:59:59.999Z', filters: { locationGroupId: groupId } }],
    [{ format: 'json', filters: {} }],
  ])('given the valid body %j, when parsed, then it is the value', (body) => {
    expect(value(parseExportRequest(body, now))).toStrictEqual(body);
  });

  it('given a valid body, when parsed, then the value is a fresh object', () => {
    const body = { format: 'json', filters: { locationGroupId: groupId } };
    const parsed = value(parseExportRequest(body, now));
    expect(parsed).not.toBe(body);
    expect(parsed).toStrictEqual(body);
  });

  it('given modifiedSince exactly now, when parsed, then it is accepted', () => {
    expect(value(parseExportRequest({ format: 'json', modifiedSince: '2024-03-01T10:00:00Z' }, now))).toStrictEqual({
      format: 'json',
      modifiedSince: '2024-03-01T10:00:00Z',
    });
  });

  it('given modifiedSince one millisecond before now, when parsed, then it is accepted', () => {
    expect(value(parseExportRequest({ format: 'csv', modifiedSince: '2024-03-01T09:59:59.999Z' }, now))).toEqual({
      format: 'csv',
      modifiedSince: '2024-03-01T09:59:59.999Z',
    });
  });

  it.each(['2024-03-01T10:00:00.001Z', '2024-03-01T10:00:01Z', '2099-01-01T00:00:00Z'])(
    'given modifiedSince %s after now, when parsed, then INVALID_DATE_RANGE says it must not be in the future',
    (modifiedSince) => {
      const error = failure(parseExportRequest({ format: 'json', modifiedSince }, now));
      expect(error.code).toBe('INVALID_DATE_RANGE');
      expect(error.details).toStrictEqual({ issues: [futureIssue] });
      expect(error.message).toBe('modifiedSince must not be in the future');
    },
  );

  it('given a future modifiedSince and a valid group filter, when parsed, then only modifiedSince is named', () => {
    const body = { format: 'csv', modifiedSince: '2030-01-01T00:00:00Z', filters: { locationGroupId: groupId } };
    expect(failure(parseExportRequest(body, now)).details.issues).toStrictEqual([futureIssue]);
  });

  it.each([
    ['no format', {}, { field: 'format', rule: 'required', message: 'format is required' }],
    ['format xml', { format: 'xml' }, { field: 'format', rule: 'enum', message: 'format must be one of json, csv' }],
    ['format JSON', { format: 'JSON' }, { field: 'format', rule: 'enum', message: 'format must be one of json, csv' }],
    ['format null', { format: null }, { field: 'format', rule: 'notNull', message: 'format must not be null' }],
    ['a numeric format', { format: 1 }, { field: 'format', rule: 'type', message: expect.any(String) }],
  ])('given %s, when parsed, then INVALID_FORMAT names format', (_, body, issue) => {
    const error = failure(parseExportRequest(body, now));
    expect(error.code).toBe('INVALID_FORMAT');
    expect(error.details).toStrictEqual({ issues: [issue] });
  });

  it.each([
    ['a body of undefined', undefined],
    ['a body of null', null],
  ])('given %s, when parsed, then it is read as an empty body: INVALID_FORMAT, format is required', (_, body) => {
    const error = failure(parseExportRequest(body, now));
    expect(error.code).toBe('INVALID_FORMAT');
    expect(error.details.issues).toStrictEqual([{ field: 'format', rule: 'required', message: 'format is required' }]);
  });

  it.each([
    ['an array', [], 'value must be an object'],
    ['a string', 'json', 'value must be an object'],
    ['a number', 0, 'value must be an object'],
  ])('given a body that is %s, when parsed, then VALIDATION_ERROR names the body itself', (_, body, message) => {
    const error = failure(parseExportRequest(body, now));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details.issues).toStrictEqual([{ field: '', rule: 'type', message }]);
  });

  it.each([
    ['a date only', '2024-02-01', 'dateTime', dateTimeMessage],
    ['an offset instead of Z', '2024-02-01T00:00:00+01:00', 'dateTime', dateTimeMessage],
    ['a day that does not exist', '2023-02-29T00:00:00Z', 'dateTime', dateTimeMessage],
    ['words', 'yesterday', 'dateTime', dateTimeMessage],
    ['an empty string', '', 'dateTime', dateTimeMessage],
    ['a number', 1_706_745_600_000, 'type', 'modifiedSince must be a string'],
    ['null', null, 'notNull', 'modifiedSince must not be null'],
  ])(
    'given modifiedSince as %s, when parsed, then INVALID_DATE_RANGE names modifiedSince',
    (_, since, rule, message) => {
      const error = failure(parseExportRequest({ format: 'json', modifiedSince: since }, now));
      expect(error.code).toBe('INVALID_DATE_RANGE');
      expect(error.details.issues).toStrictEqual([{ field: 'modifiedSince', rule, message }]);
    },
  );

  it.each([
    [
      'an unknown field',
      { format: 'json', since: '2024-01-01T00:00:00Z' },
      [{ field: 'since', rule: 'unknownField', message: 'unknown field "since"' }],
    ],
    [
      'a malformed group id',
      { format: 'json', filters: { locationGroupId: 'group-1' } },
      [{ field: 'filters.locationGroupId', rule: 'uuid', message: 'filters.locationGroupId must be a UUID' }],
    ],
    [
      'an unknown filter',
      { format: 'csv', filters: { region: 'VIC' } },
      [{ field: 'filters.region', rule: 'unknownField', message: 'unknown field "filters.region"' }],
    ],
    [
      'filters that are not an object',
      { format: 'csv', filters: [groupId] },
      [{ field: 'filters', rule: 'type', message: 'filters must be an object' }],
    ],
    [
      'filters of null',
      { format: 'csv', filters: null },
      [{ field: 'filters', rule: 'notNull', message: 'filters must not be null' }],
    ],
  ])('given %s, when parsed, then VALIDATION_ERROR names the field', (_, body, issues) => {
    const error = failure(parseExportRequest(body, now));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details.issues).toStrictEqual(issues);
  });

  it.each([
    [
      { format: 'csv', includeVersions: true },
      'jsonOnly',
      'includeVersions needs format json: a CSV record has no column for the version',
    ],
    [{ format: 'json', includeVersions: 'true' }, 'type', 'includeVersions must be a boolean'],
    [{ format: 'csv', includeVersions: null }, 'notNull', 'includeVersions must not be null'],
  ])('given %j, when parsed, then VALIDATION_ERROR names includeVersions', (body, rule, message) => {
    const error = failure(parseExportRequest(body, now));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details.issues).toStrictEqual([{ field: 'includeVersions', rule, message }]);
  });

  it.each([
    { format: 'json', includeVersions: true },
    { format: 'json', includeVersions: false },
    { format: 'csv', includeVersions: false },
  ])('given %j, when parsed, then it is accepted as asked', (body) => {
    expect(value(parseExportRequest(body, now))).toStrictEqual(body);
  });

  it.each([
    [
      { format: 'json', spreadsheetSafe: true },
      'csvOnly',
      'spreadsheetSafe needs format csv: it defuses the cells of a CSV file opened in a spreadsheet',
    ],
    [{ format: 'csv', spreadsheetSafe: 'true' }, 'type', 'spreadsheetSafe must be a boolean'],
  ])('given %j, when parsed, then VALIDATION_ERROR names spreadsheetSafe', (body, rule, message) => {
    const error = failure(parseExportRequest(body, now));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details.issues).toStrictEqual([{ field: 'spreadsheetSafe', rule, message }]);
  });

  it.each([
    { format: 'csv', spreadsheetSafe: true },
    { format: 'csv', spreadsheetSafe: false },
    { format: 'json', spreadsheetSafe: false },
  ])('given %j, when parsed, then it is accepted as asked', (body) => {
    expect(value(parseExportRequest(body, now))).toStrictEqual(body);
  });

  it.each([
    [{ format: 'csv' }, {}],
    [{ format: 'csv', spreadsheetSafe: false }, {}],
    [{ format: 'csv', spreadsheetSafe: true }, { spreadsheetSafe: true }],
    [{ format: 'json', includeVersions: false }, {}],
    [{ format: 'json', includeVersions: true }, { includeVersions: true }],
  ] as const)('given %j, when its file options are taken, then only the true ones are kept', (body, options) => {
    expect(fileOptionsOf(body)).toStrictEqual(options);
  });

  it('given includeVersions with csv and a bad format, when parsed, then the format decides the code', () => {
    const error = failure(parseExportRequest({ format: 'xml', includeVersions: 1 }, now));
    expect(error.code).toBe('INVALID_FORMAT');
    expect(error.details.issues.map((issue) => issue.field)).toEqual(['format', 'includeVersions']);
  });

  it('given a bad format, a bad modifiedSince and an unknown field, when parsed, then INVALID_FORMAT names all three', () => {
    const error = failure(parseExportRequest({ extra: 1, modifiedSince: 'soon', format: 'xml' }, now));
    expect(error.code).toBe('INVALID_FORMAT');
    expect(error.details.issues.map((issue) => issue.field).sort()).toEqual(['extra', 'format', 'modifiedSince']);
  });

  it('given an unknown field before a bad format, when parsed, then the format still decides the code', () => {
    const error = failure(parseExportRequest({ format: 'pdf', filters: { locationGroupId: 'x' } }, now));
    expect(error.code).toBe('INVALID_FORMAT');
    expect(error.details.issues.map((issue) => issue.field)).toEqual(['format', 'filters.locationGroupId']);
  });

  it('given a bad modifiedSince and a bad group id, when parsed, then INVALID_DATE_RANGE names both', () => {
    const error = failure(
      parseExportRequest({ format: 'json', modifiedSince: '2024-01-01', filters: { locationGroupId: 'x' } }, now),
    );
    expect(error.code).toBe('INVALID_DATE_RANGE');
    expect(error.details.issues.map((issue) => issue.field)).toEqual(['modifiedSince', 'filters.locationGroupId']);
  });

  it('given several problems, when parsed, then the message joins every issue', () => {
    const error = failure(parseExportRequest({ format: 'json', a: 1, b: 2 }, now));
    expect(error.message).toBe('unknown field "a"; unknown field "b"');
  });
});

describe('parseExportRequest with several problems', () => {
  it('given an unknown format and a future modifiedSince, when parsed, then both are named and the format code wins', () => {
    const result = parseExportRequest({ format: 'xml', modifiedSince: '2999-01-01T00:00:00Z' }, now);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('INVALID_FORMAT');
    expect(result.error.details.issues.map((issue) => `${issue.field}:${issue.rule}`)).toEqual([
      'format:enum',
      'modifiedSince:notInFuture',
    ]);
  });

  it.each(['tomorrow', '2999-01-01', '2999-01-01T00:00:00+01:00'])(
    'given the malformed modifiedSince %j, when parsed, then it is named once, not also as in the future',
    (modifiedSince) => {
      const result = parseExportRequest({ format: 'json', modifiedSince }, now);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error.details.issues.map((issue) => issue.rule)).toEqual(['dateTime']);
    },
  );
});

describe('selectionOf', () => {
  it.each([
    [{ format: 'json' } as const, {}],
    [{ format: 'csv', filters: {} } as const, {}],
    [{ format: 'json', modifiedSince: '2024-02-01T00:00:00Z' } as const, { modifiedSince: '2024-02-01T00:00:00Z' }],
    [{ format: 'csv', filters: { locationGroupId: groupId } } as const, { locationGroupId: groupId }],
    [
      { format: 'json', modifiedSince: '2024-02-01T00:00:00Z', filters: { locationGroupId: groupId.toUpperCase() } },
      { modifiedSince: '2024-02-01T00:00:00Z', locationGroupId: groupId },
    ],
  ] as const)('given the body %j, when its selection is taken, then it is %j', (body, selection) => {
    expect(selectionOf(body)).toStrictEqual(selection);
  });
});

describe('canonicalExportRequest', () => {
  it.each([
    ['json', {}, '["json",null,null]'],
    ['csv', { modifiedSince: '2024-02-01T00:00:00Z' }, '["csv","2024-02-01T00:00:00.000Z",null]'],
    ['json', { locationGroupId: groupId.toUpperCase() }, `["json",null,"${groupId}"]`],
    [
      'csv',
      { locationGroupId: groupId, modifiedSince: '2024-02-01T00:00:00Z' },
      `["csv","2024-02-01T00:00:00.000Z","${groupId}"]`,
    ],
  ] as const)('given format %s and the selection %j, when made canonical, then it is %s', (format, selection, key) => {
    expect(canonicalExportRequest(format, selection)).toBe(key);
  });

  it('given equal bodies formatted differently, when parsed and made canonical, then the strings are equal', () => {
    const canonical = (json: string) => {
      const body = value(parseExportRequest(JSON.parse(json), now));
      return canonicalExportRequest(body.format, selectionOf(body));
    };
    const first = canonical(
      `{"format":"csv","modifiedSince":"2024-02-01T00:00:00Z","filters":{"locationGroupId":"${groupId}"}}`,
    );
    const second = canonical(
      `{ "filters": { "locationGroupId": "${groupId.toUpperCase()}" },\n  "modifiedSince": "2024-02-01T00:00:00Z",\n  "format": "csv" }`,
    );
    expect(second).toBe(first);
  });

  it('given a group id in upper and in lower case, when made canonical, then the strings are equal', () => {
    expect(canonicalExportRequest('json', { locationGroupId: groupId.toUpperCase() })).toBe(
      canonicalExportRequest('json', { locationGroupId: groupId }),
    );
  });

  it('given no filters and empty filters, when made canonical, then the strings are equal', () => {
    expect(canonicalExportRequest('csv', selectionOf({ format: 'csv', filters: {} }))).toBe(
      canonicalExportRequest('csv', selectionOf({ format: 'csv' })),
    );
  });

  it('given different selections or formats, when made canonical, then every string differs', () => {
    const keys = [
      canonicalExportRequest('json', {}),
      canonicalExportRequest('csv', {}),
      canonicalExportRequest('json', { modifiedSince: '2024-02-01T00:00:00Z' }),
      canonicalExportRequest('json', { modifiedSince: '2024-02-01T00:00:01Z' }),
      canonicalExportRequest('json', { locationGroupId: groupId }),
      canonicalExportRequest('json', { locationGroupId: requestId }),
      canonicalExportRequest('json', { modifiedSince: '2024-02-01T00:00:00Z', locationGroupId: groupId }),
      canonicalExportRequest('csv', { modifiedSince: '2024-02-01T00:00:00Z', locationGroupId: groupId }),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('given includeVersions, when made canonical, then only true changes the string, the old one kept without it', () => {
    expect(canonicalExportRequest('json', {}, { includeVersions: false })).toBe('["json",null,null]');
    expect(canonicalExportRequest('json', {}, { includeVersions: true })).toBe(
      '["json",null,null,{"includeVersions":true}]',
    );
    expect(canonicalExportRequest('json', { locationGroupId: groupId }, { includeVersions: true })).not.toBe(
      canonicalExportRequest('json', { locationGroupId: groupId }),
    );
  });

  it('given spreadsheetSafe, when made canonical, then only true changes the string, the old one kept without it', () => {
    expect(canonicalExportRequest('csv', {}, { spreadsheetSafe: false })).toBe('["csv",null,null]');
    expect(canonicalExportRequest('csv', {}, { spreadsheetSafe: true })).toBe(
      '["csv",null,null,{"spreadsheetSafe":true}]',
    );
  });

  it('given one instant written with and without milliseconds, when made canonical, then the strings are equal', () => {
    expect(canonicalExportRequest('json', { modifiedSince: '2024-02-01T00:00:00Z' })).toBe(
      canonicalExportRequest('json', { modifiedSince: '2024-02-01T00:00:00.000Z' }),
    );
  });
});

describe('exportFailureMessage', () => {
  it('tells the RSP what it can do and which id to quote, without any internal cause', () => {
    expect(exportFailureMessage(requestId, 3)).toBe(
      'The export could not be generated after 3 attempts; the request itself was valid. Request the export again ' +
        'later with a new Idempotency-Key (or none: the same key replays this export); if it keeps failing, contact ' +
        `the operator and quote export id ${requestId}.`,
    );
  });

  it('counts one attempt in the singular', () => {
    expect(exportFailureMessage(requestId, 1)).toContain('after 1 attempt;');
  });
});

describe('exportRetryDelaySeconds', () => {
  it.each([
    [0, 30, 30],
    [1, 30, 30],
    [2, 30, 60],
    [3, 30, 120],
    [4, 30, 240],
    [7, 30, 1920],
    [8, 30, 3600],
    [20, 30, 3600],
    [1, 5000, 3600],
    [1, 3600, 3600],
    [2, 1800, 3600],
    [3, 900, 3600],
    [6, 60, 1920],
    [7, 60, 3600],
    [-3, 10, 10],
  ])(
    'given attempt %i failed with a base of %is, when the delay is computed, then it is %is',
    (attempt, base, delay) => {
      expect(exportRetryDelaySeconds(attempt, base)).toBe(delay);
    },
  );
});

describe('exportStatusReplyOf', () => {
  it('given a PENDING request with no total yet, when replied, then status and progress of what was written', () => {
    const reply = exportStatusReplyOf(request({ progress: { written: 0 } }));
    expect(reply).toStrictEqual({
      requestId,
      format: 'json',
      createdAt: '2024-03-01T10:00:00Z',
      status: 'PENDING',
      progress: { written: 0 },
    });
    expect(exportStatusReplySchema.safeParse(reply).success).toBe(true);
  });

  it('given a PENDING request that knows its total, when replied, then progress has written and total', () => {
    const progress = { written: 500, total: 1250 };
    const reply = exportStatusReplyOf(request({ format: 'csv', progress, attempts: 2 }));
    expect(reply).toStrictEqual({
      requestId,
      format: 'csv',
      createdAt: '2024-03-01T10:00:00Z',
      status: 'PENDING',
      progress: { written: 500, total: 1250 },
    });
    expect(reply.status === 'PENDING' && reply.progress).not.toBe(progress);
    expect(exportStatusReplySchema.safeParse(reply).success).toBe(true);
  });

  it('given a COMPLETED request, when replied, then exactly the download fields, checksum and size are added', () => {
    const reply = exportStatusReplyOf(request({ status: 'COMPLETED', attempts: 1, file }));
    expect(reply).toStrictEqual({
      requestId,
      format: 'json',
      createdAt: '2024-03-01T10:00:00Z',
      status: 'COMPLETED',
      exportUrl: file.exportUrl,
      downloadExpiresAt: '2024-03-02T10:00:00Z',
      exportTimestamp: '2024-03-01T10:05:00Z',
      totalCount: 1250,
      sha256: 'a'.repeat(64),
      sizeBytes: 48_213,
    });
    expect(Object.keys(reply)).not.toEqual(expect.arrayContaining(['objectKey']));
    expect(reply).not.toHaveProperty('fileExpiresAt');
    expect(reply).not.toHaveProperty('progress');
    expect(exportStatusReplySchema.safeParse(reply).success).toBe(true);
  });

  it('given a COMPLETED request whose file retention deleted, when replied, then fileDeletedAt does not leak', () => {
    const reply = exportStatusReplyOf(
      request({ status: 'COMPLETED', file: { ...file, fileDeletedAt: '2024-03-08T10:05:00Z' } }),
    );
    expect(reply).not.toHaveProperty('fileDeletedAt');
    expect(exportStatusReplySchema.safeParse(reply).success).toBe(true);
  });

  it('given a FAILED request, when replied, then the error is added and nothing else', () => {
    const reply = exportStatusReplyOf(request({ status: 'FAILED', attempts: 5, error: failedError }));
    expect(reply).toStrictEqual({
      requestId,
      format: 'json',
      createdAt: '2024-03-01T10:00:00Z',
      status: 'FAILED',
      error: { code: 'EXPORT_GENERATION_FAILED', message: 'the export could not be generated' },
    });
    expect(reply.status === 'FAILED' && reply.error).not.toBe(failedError);
    expect(exportStatusReplySchema.safeParse(reply).success).toBe(true);
  });

  it.each([
    ['PENDING', { progress: { written: 3 } }],
    ['COMPLETED', { file }],
    ['FAILED', { error: failedError }],
  ] as const)(
    'given a %s request with modifiedSince and a group, when replied, then both are echoed',
    (status, extra) => {
      const reply = exportStatusReplyOf(
        request({ status, ...extra, modifiedSince: '2024-02-01T00:00:00Z', locationGroupId: groupId }),
      );
      expect(reply).toMatchObject({
        status,
        modifiedSince: '2024-02-01T00:00:00Z',
        filters: { locationGroupId: groupId },
      });
      expect(reply.filters).toStrictEqual({ locationGroupId: groupId });
      expect(exportStatusReplySchema.safeParse(reply).success).toBe(true);
    },
  );

  it.each([
    ['PENDING', { progress: { written: 3 } }],
    ['COMPLETED', { file }],
    ['FAILED', { error: failedError }],
  ] as const)('given a %s request with includeVersions, when replied, then the flag is echoed', (status, extra) => {
    const reply = exportStatusReplyOf(request({ status, ...extra, includeVersions: true }));
    expect(reply).toMatchObject({ status, includeVersions: true });
    expect(exportStatusReplySchema.safeParse(reply).success).toBe(true);
  });

  it('given a request without includeVersions, when replied, then the flag is not echoed', () => {
    expect(exportStatusReplyOf(request({ progress: { written: 0 } }))).not.toHaveProperty('includeVersions');
  });

  it.each([
    ['PENDING', { progress: { written: 3 } }],
    ['COMPLETED', { file }],
    ['FAILED', { error: failedError }],
  ] as const)('given a %s csv request with spreadsheetSafe, when replied, then the flag is echoed', (status, extra) => {
    const reply = exportStatusReplyOf(request({ status, ...extra, format: 'csv', spreadsheetSafe: true }));
    expect(reply).toMatchObject({ status, spreadsheetSafe: true });
    expect(exportStatusReplySchema.safeParse(reply).success).toBe(true);
  });

  it('given a request without spreadsheetSafe, when replied, then the flag is not echoed', () => {
    expect(exportStatusReplyOf(request({ progress: { written: 0 } }))).not.toHaveProperty('spreadsheetSafe');
  });

  it('given only modifiedSince, when replied, then there are no filters', () => {
    const reply = exportStatusReplyOf(request({ modifiedSince: '2024-02-01T00:00:00Z' }));
    expect(reply.modifiedSince).toBe('2024-02-01T00:00:00Z');
    expect(reply).not.toHaveProperty('filters');
  });

  it('given only a group, when replied, then there is no modifiedSince', () => {
    const reply = exportStatusReplyOf(request({ locationGroupId: groupId }));
    expect(reply.filters).toStrictEqual({ locationGroupId: groupId });
    expect(reply).not.toHaveProperty('modifiedSince');
  });

  it.each([
    ['neither', {}],
    ['a COMPLETED request', { status: 'COMPLETED', file }],
    ['a FAILED request', { status: 'FAILED', error: failedError }],
  ] as const)('given %s with no selection, when replied, then modifiedSince and filters are absent', (_, extra) => {
    const reply = exportStatusReplyOf(request(extra));
    expect(reply).not.toHaveProperty('modifiedSince');
    expect(reply).not.toHaveProperty('filters');
  });

  it.each([
    ['a PENDING request that holds a file', { status: 'PENDING', file }],
    ['a PENDING request that holds an error', { status: 'PENDING', error: failedError }],
    ['a COMPLETED request without a file', { status: 'COMPLETED' }],
    ['a FAILED request without an error', { status: 'FAILED' }],
    ['a FAILED request that holds a file', { status: 'FAILED', file }],
    ['a COMPLETED request that holds only an error', { status: 'COMPLETED', error: failedError }],
  ] as const)('given %s, when replied, then it is PENDING with its progress', (_, extra) => {
    const reply = exportStatusReplyOf(request({ progress: { written: 7, total: 9 }, ...extra }));
    expect(reply).toStrictEqual({
      requestId,
      format: 'json',
      createdAt: '2024-03-01T10:00:00Z',
      status: 'PENDING',
      progress: { written: 7, total: 9 },
    });
  });
});

describe('exportNotificationOf', () => {
  it('given a COMPLETED request, when notified, then the spec fields of the download and nothing else', () => {
    const notification = exportNotificationOf(
      request({ status: 'COMPLETED', file, modifiedSince: '2024-02-01T00:00:00Z', locationGroupId: groupId }),
    );
    expect(notification).toStrictEqual({
      requestId,
      status: 'COMPLETED',
      exportUrl: file.exportUrl,
      downloadExpiresAt: '2024-03-02T10:00:00Z',
      exportTimestamp: '2024-03-01T10:05:00Z',
      totalCount: 1250,
    });
    expect(exportNotificationSchema.safeParse(notification).success).toBe(true);
  });

  it('given a FAILED request, when notified, then the id, status and a copy of the error', () => {
    const notification = exportNotificationOf(request({ status: 'FAILED', error: failedError }));
    expect(notification).toStrictEqual({
      requestId,
      status: 'FAILED',
      error: { code: 'EXPORT_GENERATION_FAILED', message: 'the export could not be generated' },
    });
    expect(notification?.status === 'FAILED' && notification.error).not.toBe(failedError);
    expect(exportNotificationSchema.safeParse(notification).success).toBe(true);
  });

  it.each([
    ['a PENDING request', {}],
    ['a PENDING request that holds a file', { file }],
    ['a PENDING request that holds an error', { error: failedError }],
    ['a COMPLETED request without a file', { status: 'COMPLETED' }],
    ['a FAILED request without an error', { status: 'FAILED' }],
    ['a FAILED request that holds only a file', { status: 'FAILED', file }],
    ['a COMPLETED request that holds only an error', { status: 'COMPLETED', error: failedError }],
  ] as const)('given %s, when notified, then there is no notification', (_, extra) => {
    expect(exportNotificationOf(request(extra))).toBeUndefined();
  });
});

describe('exportFilename', () => {
  it.each([
    ['json', `locations-export-${requestId}.json`],
    ['csv', `locations-export-${requestId}.csv`],
  ] as const)('given a %s export, when named, then the file is %s', (format, name) => {
    expect(exportFilename({ id: requestId, format })).toBe(name);
  });
});

describe('exportObjectKey', () => {
  it("given a request and an attempt, when keyed, then each attempt has its object under the request's own prefix", () => {
    const request = { id: '00000000-0000-4000-8000-0000000000aa', clientId: 'rsp-one', format: 'csv' as const };
    expect(exportObjectKey(request, 1)).toBe('exports/rsp-one/00000000-0000-4000-8000-0000000000aa/attempt-1.csv');
    expect(exportObjectKey({ ...request, format: 'json' }, 3)).toBe(
      'exports/rsp-one/00000000-0000-4000-8000-0000000000aa/attempt-3.json',
    );
  });
});
