import { ValidationFailedError } from '../errors/domain-error';
import type { Result } from '../result';
import {
  parseChangeFeedQuery,
  parseDeliveryListQuery,
  parseDigestEntriesQuery,
  parseDigestQuery,
  parseExportListQuery,
  parseGroupListQuery,
  parseLocationListQuery,
  parseSnapshotQuery,
  parseStatisticsQuery,
  type QueryParameters,
} from './query-parameters';

const groupId = '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50';

function failure<T>(result: Result<T, ValidationFailedError>): { code: string; fields: string[]; messages: string[] } {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`);
  expect(result.error).toBeInstanceOf(ValidationFailedError);
  return {
    code: result.error.code,
    fields: result.error.details.issues.map((issue) => issue.field),
    messages: result.error.details.issues.map((issue) => issue.message),
  };
}

/** The failure with the rule of each issue too. */
function failureWithRules<T>(result: Result<T, ValidationFailedError>) {
  const failed = failure(result);
  return { ...failed, rules: (result as { error: ValidationFailedError }).error.details.issues.map((i) => i.rule) };
}

function value<T>(result: Result<T, ValidationFailedError>): T {
  if (!result.ok) throw new Error(`expected a value, got ${result.error.message}`);
  return result.value;
}

describe('parseLocationListQuery', () => {
  it('given no parameters, when parsed, then the page is limit 100 offset 0', () => {
    expect(value(parseLocationListQuery({}))).toEqual({ page: { limit: 100, offset: 0 } });
  });

  it('given group filters in upper case, when parsed, then they are kept in canonical lower case', () => {
    const query = { locationGroupId: groupId.toUpperCase(), addressGroupId: groupId, limit: '1000', offset: '20' };
    expect(value(parseLocationListQuery(query))).toEqual({
      page: { limit: 1000, offset: 20 },
      locationGroupId: groupId,
      addressGroupId: groupId,
    });
  });

  it.each(['0', '1001', '-1', '1.5', 'ten', '', '1e2', ' 5'])(
    'given limit %j, when parsed, then INVALID_LIMIT names limit',
    (limit) => {
      expect(failure(parseLocationListQuery({ limit }))).toMatchObject({ code: 'INVALID_LIMIT', fields: ['limit'] });
    },
  );

  it.each(['-1', '1.5', 'x', '', '99999999999999999'])(
    'given offset %j, when parsed, then INVALID_OFFSET names offset',
    (offset) => {
      expect(failure(parseLocationListQuery({ offset }))).toMatchObject({ code: 'INVALID_OFFSET', fields: ['offset'] });
    },
  );

  it('given limit 1 and the deepest offset, when parsed, then both are accepted', () => {
    expect(value(parseLocationListQuery({ limit: '1', offset: '10000' })).page).toEqual({ limit: 1, offset: 10_000 });
  });

  it('given an offset past the cap, when parsed, then INVALID_OFFSET says to read further by after', () => {
    expect(failure(parseLocationListQuery({ offset: '10001' }))).toEqual({
      code: 'INVALID_OFFSET',
      fields: ['offset'],
      messages: [
        'offset must be an integer from 0 to 10000; read further by after (each page names it as pagination.next)',
      ],
    });
  });

  it('given after, when parsed, then the page starts after that id (lower case) at offset 0', () => {
    expect(value(parseLocationListQuery({ after: groupId.toUpperCase(), limit: '5' })).page).toStrictEqual({
      limit: 5,
      offset: 0,
      after: groupId,
    });
    expect(value(parseLocationListQuery({ after: groupId, offset: '0' })).page).toStrictEqual({
      limit: 100,
      offset: 0,
      after: groupId,
    });
  });

  it.each([
    [{ after: 'x' }, 'after', 'uuid', 'after must be a UUID'],
    [{ after: [groupId, groupId] }, 'after', 'single', 'after must be given once'],
    [{ after: groupId, offset: '1' }, 'offset', 'withAfter', 'offset cannot be combined with after'],
  ])('given %j, when parsed, then INVALID_OFFSET names %s (%s)', (query, field, rule, message) => {
    expect(failureWithRules(parseLocationListQuery(query))).toEqual({
      code: 'INVALID_OFFSET',
      fields: [field],
      rules: [rule],
      messages: [message],
    });
  });

  it('given a repeated limit, when parsed, then INVALID_LIMIT says it must be given once', () => {
    expect(failure(parseLocationListQuery({ limit: ['1', '2'] }))).toMatchObject({
      code: 'INVALID_LIMIT',
      messages: ['limit must be given once'],
    });
  });

  it('given a malformed group id, when parsed, then INVALID_FILTER names the parameter', () => {
    expect(failure(parseLocationListQuery({ locationGroupId: 'abc' }))).toEqual({
      code: 'INVALID_FILTER',
      fields: ['locationGroupId'],
      messages: ['locationGroupId must be a UUID'],
    });
  });

  it('given an unknown parameter, when parsed, then INVALID_FILTER names it', () => {
    expect(failure(parseLocationListQuery({ status: 'ACTIVE' }))).toMatchObject({
      code: 'INVALID_FILTER',
      fields: ['status'],
    });
  });

  it('given several problems, when parsed, then every one is named and the first decides the code', () => {
    expect(failure(parseLocationListQuery({ limit: '0', offset: '-1', addressGroupId: 'x' }))).toEqual({
      code: 'INVALID_LIMIT',
      fields: ['limit', 'offset', 'addressGroupId'],
      messages: [
        'limit must be an integer from 1 to 1000',
        'offset must be an integer from 0 to 10000; read further by after (each page names it as pagination.next)',
        expect.any(String),
      ],
    });
  });
});

describe('parseGroupListQuery', () => {
  it('given type and name, when parsed, then both are kept as sent', () => {
    expect(value(parseGroupListQuery({ type: 'OTHER', name: 'Phase 1', limit: '5' }, 'OTHER'))).toEqual({
      page: { limit: 5, offset: 0 },
      type: 'OTHER',
      name: 'Phase 1',
    });
  });

  it.each([
    ['OTHER', 'MDU_COMPLEX'],
    ['MDU_COMPLEX', 'OTHER'],
    ['other', 'OTHER'],
  ] as const)('given type %s for groups of type %s, when parsed, then INVALID_FILTER', (type, groupType) => {
    expect(failure(parseGroupListQuery({ type }, groupType))).toEqual({
      code: 'INVALID_FILTER',
      fields: ['type'],
      messages: [`type must be ${groupType}`],
    });
  });

  it('given an empty name, when parsed, then INVALID_FILTER', () => {
    expect(failure(parseGroupListQuery({ name: ' ' }, 'OTHER'))).toMatchObject({
      code: 'INVALID_FILTER',
      fields: ['name'],
    });
  });

  it('given after, when parsed, then the page starts after it', () => {
    expect(value(parseGroupListQuery({ after: groupId }, 'OTHER')).page).toStrictEqual({
      limit: 100,
      offset: 0,
      after: groupId,
    });
  });

  it('given a bad offset, when parsed, then INVALID_OFFSET', () => {
    expect(failure(parseGroupListQuery({ offset: 'last' }, 'MDU_COMPLEX')).code).toBe('INVALID_OFFSET');
  });

  it('given modifiedSince, when parsed, then it is kept as sent', () => {
    expect(value(parseGroupListQuery({ modifiedSince: '2024-05-01T10:00:00.5Z' }, 'OTHER'))).toEqual({
      page: { limit: 100, offset: 0 },
      modifiedSince: '2024-05-01T10:00:00.5Z',
    });
  });

  it.each([
    [
      { modifiedSince: '2024-05-01' },
      'modifiedSince must be an ISO 8601 UTC date-time ending in Z, like 2024-01-31T09:30:00Z',
    ],
    [
      { modifiedSince: '2024-05-01T10:00:00+02:00' },
      'modifiedSince must be an ISO 8601 UTC date-time ending in Z, like 2024-01-31T09:30:00Z',
    ],
    [
      { modifiedSince: '2023-02-29T10:00:00Z' },
      'modifiedSince must be an ISO 8601 UTC date-time ending in Z, like 2024-01-31T09:30:00Z',
    ],
    [{ modifiedSince: ['2024-05-01T10:00:00Z', '2024-05-02T10:00:00Z'] }, 'modifiedSince must be given once'],
  ])('given %j, when parsed, then INVALID_FILTER naming modifiedSince, as the statistics do', (query, message) => {
    expect(failure(parseGroupListQuery(query, 'MDU_COMPLEX'))).toEqual({
      code: 'INVALID_FILTER',
      fields: ['modifiedSince'],
      messages: [message],
    });
  });

  it('given a name with the NUL character, when parsed, then INVALID_FILTER naming it (PostgreSQL cannot compare it)', () => {
    expect(failure(parseGroupListQuery({ name: 'a\u0000b' }, 'OTHER'))).toEqual({
      code: 'INVALID_FILTER',
      fields: ['name'],
      messages: ['name must not contain the NUL character (U+0000)'],
    });
    const result = parseGroupListQuery({ name: 'a\u0000b' }, 'OTHER');
    expect(result.ok ? [] : result.error.details.issues.map((issue) => issue.rule)).toEqual(['noNulCharacter']);
  });

  it('given a limit with the NUL character, when parsed, then the code of that parameter', () => {
    expect(failure(parseGroupListQuery({ limit: '5\u0000' }, 'OTHER')).code).toBe('INVALID_LIMIT');
  });
});

describe('parseStatisticsQuery', () => {
  it('given no parameters, when parsed, then there is no filter', () => {
    expect(value(parseStatisticsQuery({}))).toEqual({});
  });

  it('given every parameter, when parsed, then each becomes its filter', () => {
    const query: QueryParameters = {
      status: 'ACTIVE, PLANNED',
      modifiedSince: '2024-01-01T00:00:00Z',
      modifiedBefore: '2024-02-01T00:00:00.500Z',
      hasAddress: 'true',
      hasCoordinates: 'false',
      hasLocationGroup: 'true',
      addressGroupId: groupId,
      locationGroupId: groupId.toUpperCase(),
      country: 'us',
      region: 'CO',
      locality: 'Denver',
      postalCode: '80202',
    };
    expect(value(parseStatisticsQuery(query))).toEqual({
      statuses: ['ACTIVE', 'PLANNED'],
      modifiedSince: '2024-01-01T00:00:00Z',
      modifiedBefore: '2024-02-01T00:00:00.500Z',
      hasAddress: true,
      hasCoordinates: false,
      hasLocationGroup: true,
      addressGroupId: groupId,
      locationGroupId: groupId,
      country: 'US',
      region: 'CO',
      locality: 'Denver',
      postalCode: '80202',
    });
  });

  it('given status repeated and duplicated, when parsed, then the statuses are combined once each', () => {
    expect(value(parseStatisticsQuery({ status: ['ACTIVE,RETIRED', 'ACTIVE'] })).statuses).toEqual([
      'ACTIVE',
      'RETIRED',
    ]);
  });

  it.each(['UNKNOWN', 'active', '', 'ACTIVE,', 'ACTIVE,,PLANNED'])(
    'given status %j, when parsed, then INVALID_STATUS names status',
    (status) => {
      expect(failure(parseStatisticsQuery({ status }))).toMatchObject({ code: 'INVALID_STATUS', fields: ['status'] });
    },
  );

  it.each([
    ['modifiedSince', '2024-01-01'],
    ['modifiedSince', '2024-01-01T00:00:00+01:00'],
    ['modifiedBefore', '2023-02-29T00:00:00Z'],
    ['modifiedBefore', 'yesterday'],
    ['hasAddress', 'yes'],
    ['hasCoordinates', 'TRUE'],
    ['hasLocationGroup', '1'],
    ['addressGroupId', 'not-a-uuid'],
    ['locationGroupId', '5a2d9c7e1f3b4c6a8e9d0b1c2d3e4f50'],
    ['country', 'USA'],
    ['region', ''],
    ['locality', '   '],
    ['postalCode', ''],
    ['city', 'Denver'],
    ['limit', '10'],
  ])('given %s=%j, when parsed, then INVALID_FILTER names the parameter', (name, raw) => {
    expect(failure(parseStatisticsQuery({ [name]: raw }))).toMatchObject({ code: 'INVALID_FILTER', fields: [name] });
  });

  it('given a filter repeated, when parsed, then INVALID_FILTER says it must be given once', () => {
    expect(failure(parseStatisticsQuery({ country: ['US', 'CA'] }))).toEqual({
      code: 'INVALID_FILTER',
      fields: ['country'],
      messages: ['country must be given once'],
    });
  });

  it.each([
    ['2024-02-01T00:00:00Z', '2024-01-01T00:00:00Z'],
    ['2024-01-01T00:00:00Z', '2024-01-01T00:00:00.000Z'],
  ])('given modifiedSince %s not before modifiedBefore %s, when parsed, then INVALID_DATE_RANGE', (since, before) => {
    expect(failure(parseStatisticsQuery({ modifiedSince: since, modifiedBefore: before }))).toMatchObject({
      code: 'INVALID_DATE_RANGE',
      fields: ['modifiedSince'],
    });
  });

  it('given a bad status and a bad boolean, when parsed, then the status problem decides the code and both are named', () => {
    expect(failure(parseStatisticsQuery({ hasAddress: 'maybe', status: 'LIVE' }))).toMatchObject({
      code: 'INVALID_STATUS',
      fields: ['status', 'hasAddress'],
    });
  });
});

describe('parseSnapshotQuery', () => {
  it('given no parameter, when parsed, then the whole read model is asked for', () => {
    expect(value(parseSnapshotQuery({}))).toEqual({});
  });

  it('given modifiedSince, when parsed, then it is kept', () => {
    expect(value(parseSnapshotQuery({ modifiedSince: '2024-05-01T00:00:00Z' }))).toEqual({
      modifiedSince: '2024-05-01T00:00:00Z',
    });
  });

  it('given a modifiedSince that is not a UTC date-time, when parsed, then INVALID_DATE_RANGE as for exports', () => {
    expect(failure(parseSnapshotQuery({ modifiedSince: '2024-05-01' }))).toMatchObject({
      code: 'INVALID_DATE_RANGE',
      fields: ['modifiedSince'],
    });
  });

  it('given an unknown parameter, when parsed, then INVALID_FILTER', () => {
    expect(failure(parseSnapshotQuery({ fields: 'id' })).code).toBe('INVALID_FILTER');
  });

  it('given every parameter, when parsed, then each is kept, the group id in canonical lower case', () => {
    const query = {
      modifiedSince: '2024-05-01T00:00:00.123Z',
      locationGroupId: groupId.toUpperCase(),
      catchUp: 'true',
      format: 'csv',
    };
    expect(value(parseSnapshotQuery(query))).toEqual({
      modifiedSince: '2024-05-01T00:00:00.123Z',
      locationGroupId: groupId,
      catchUp: true,
      format: 'csv',
    });
  });

  it('given format=json, when parsed, then NDJSON is asked for', () => {
    expect(value(parseSnapshotQuery({ format: 'json' }))).toEqual({ format: 'json' });
  });

  it.each([
    [{ format: 'xml' }, 'format must be json or csv'],
    [{ format: ['csv', 'json'] }, 'format must be given once'],
  ])('given %j, when parsed, then INVALID_FORMAT naming format', (query, message) => {
    expect(failure(parseSnapshotQuery(query))).toEqual({
      code: 'INVALID_FORMAT',
      fields: ['format'],
      messages: [message],
    });
  });

  it('given groups=true with format json or no format, when parsed, then the groups are asked for', () => {
    expect(value(parseSnapshotQuery({ groups: 'true', format: 'json' }))).toEqual({ groups: true, format: 'json' });
    expect(value(parseSnapshotQuery({ groups: 'true' }))).toEqual({ groups: true });
    expect(value(parseSnapshotQuery({ groups: 'false', format: 'csv' }))).toEqual({ groups: false, format: 'csv' });
  });

  it.each([
    [{ groups: 'true', format: 'csv' }, 'groups=true needs format=json: CSV records hold no groups'],
    [{ groups: 'yes' }, 'groups must be true or false'],
  ])('given %j, when parsed, then INVALID_FILTER naming groups', (query, message) => {
    expect(failure(parseSnapshotQuery(query))).toEqual({
      code: 'INVALID_FILTER',
      fields: ['groups'],
      messages: [message],
    });
  });

  it('given versions=true with format json or no format, when parsed, then the versions are asked for', () => {
    expect(value(parseSnapshotQuery({ versions: 'true', groups: 'true', format: 'json' }))).toEqual({
      versions: true,
      groups: true,
      format: 'json',
    });
    expect(value(parseSnapshotQuery({ versions: 'true' }))).toEqual({ versions: true });
    expect(value(parseSnapshotQuery({ versions: 'false', format: 'csv' }))).toEqual({ versions: false, format: 'csv' });
  });

  it.each([
    [{ versions: 'true', format: 'csv' }, 'versions=true needs format=json: CSV records hold no version'],
    [{ versions: 'catchUp' }, 'versions must be true or false'],
    [{ versions: ['true', 'false'] }, 'versions must be given once'],
  ])('given %j, when parsed, then INVALID_FILTER naming versions', (query, message) => {
    expect(failure(parseSnapshotQuery(query))).toEqual({
      code: 'INVALID_FILTER',
      fields: ['versions'],
      messages: [message],
    });
  });

  it('given versions=true with format csv, when parsed, then the issue names the rule jsonOnly', () => {
    expect(failureWithRules(parseSnapshotQuery({ versions: 'true', format: 'csv' })).rules).toEqual(['jsonOnly']);
  });

  it('given catchUp=false, when parsed, then the snapshot does not wait', () => {
    expect(value(parseSnapshotQuery({ catchUp: 'false' }))).toEqual({ catchUp: false });
  });

  it.each([
    [{ locationGroupId: 'not-a-uuid' }, 'locationGroupId', 'locationGroupId must be a UUID'],
    [{ catchUp: 'yes' }, 'catchUp', 'catchUp must be true or false'],
    [{ catchUp: ['true', 'true'] }, 'catchUp', 'catchUp must be given once'],
  ])('given %j, when parsed, then INVALID_FILTER naming the parameter', (query, field, message) => {
    expect(failure(parseSnapshotQuery(query))).toEqual({
      code: 'INVALID_FILTER',
      fields: [field],
      messages: [message],
    });
  });

  it('given a bad modifiedSince and a bad group id, when parsed, then both are named, the date code first', () => {
    expect(failure(parseSnapshotQuery({ modifiedSince: 'yesterday', locationGroupId: 'x' }))).toMatchObject({
      code: 'INVALID_DATE_RANGE',
      fields: ['modifiedSince', 'locationGroupId'],
    });
  });
});

describe('parseExportListQuery', () => {
  it('given no parameters, when parsed, then every status and the first page of 100', () => {
    expect(value(parseExportListQuery({}))).toStrictEqual({ page: { limit: 100, offset: 0 } });
  });

  it.each(['PENDING', 'COMPLETED', 'FAILED'])('given status %s, when parsed, then it filters by it', (status) => {
    expect(value(parseExportListQuery({ status }))).toStrictEqual({ page: { limit: 100, offset: 0 }, status });
  });

  it('given status, limit and offset, when parsed, then all three are kept', () => {
    expect(value(parseExportListQuery({ status: 'FAILED', limit: '1000', offset: '40' }))).toStrictEqual({
      page: { limit: 1000, offset: 40 },
      status: 'FAILED',
    });
  });

  it('given an offset past the cap or an after, when parsed, then the list is not paged by id: narrow the filters', () => {
    expect(failure(parseExportListQuery({ offset: '10001' })).messages).toEqual([
      'offset must be an integer from 0 to 10000; narrow the filters to read further',
    ]);
    expect(failure(parseExportListQuery({ after: groupId }))).toMatchObject({
      code: 'INVALID_FILTER',
      fields: ['after'],
    });
  });

  it.each(['pending', 'DONE', '', 'PENDING,FAILED', ' PENDING'])(
    'given status %j, when parsed, then INVALID_FILTER names the three statuses',
    (status) => {
      expect(failure(parseExportListQuery({ status }))).toEqual({
        code: 'INVALID_FILTER',
        fields: ['status'],
        messages: ['status must be one of PENDING, COMPLETED, FAILED'],
      });
    },
  );

  it('given an unknown status, when parsed, then the issue is an enum rule on status', () => {
    const result = parseExportListQuery({ status: 'DONE' });
    expect(result.ok ? [] : result.error.details.issues).toStrictEqual([
      { field: 'status', rule: 'enum', message: 'status must be one of PENDING, COMPLETED, FAILED' },
    ]);
  });

  it('given status repeated, when parsed, then INVALID_FILTER says it must be given once', () => {
    expect(failure(parseExportListQuery({ status: ['PENDING', 'FAILED'] }))).toEqual({
      code: 'INVALID_FILTER',
      fields: ['status'],
      messages: ['status must be given once'],
    });
  });

  it.each(['format', 'modifiedSince', 'locationGroupId'])(
    'given the unknown parameter %s, when parsed, then INVALID_FILTER names it',
    (name) => {
      expect(failure(parseExportListQuery({ [name]: 'x' }))).toEqual({
        code: 'INVALID_FILTER',
        fields: [name],
        messages: [`${name} is not a known query parameter`],
      });
    },
  );

  it.each([
    [{ limit: '0' }, 'INVALID_LIMIT', 'limit'],
    [{ limit: '1001' }, 'INVALID_LIMIT', 'limit'],
    [{ offset: '-1' }, 'INVALID_OFFSET', 'offset'],
  ])('given %j, when parsed, then %s names %s', (query, code, field) => {
    expect(failure(parseExportListQuery(query))).toMatchObject({ code, fields: [field] });
  });

  it('given a bad page and a bad status, when parsed, then the page decides the code and both are named', () => {
    expect(failure(parseExportListQuery({ status: 'DONE', offset: 'x' }))).toMatchObject({
      code: 'INVALID_OFFSET',
      fields: ['offset', 'status'],
    });
  });

  it('given an unknown parameter and a bad status, when parsed, then both are named in that order', () => {
    expect(failure(parseExportListQuery({ status: 'DONE', since: 'x' }))).toMatchObject({
      code: 'INVALID_FILTER',
      fields: ['since', 'status'],
    });
  });
});

describe('parseDeliveryListQuery', () => {
  it('given no parameters, when parsed, then every delivery and the first page of 100', () => {
    expect(value(parseDeliveryListQuery({}, 'client'))).toStrictEqual({ page: { limit: 100, offset: 0 } });
    expect(value(parseDeliveryListQuery({}, 'admin'))).toStrictEqual({ page: { limit: 100, offset: 0 } });
  });

  it.each(['PENDING', 'DELIVERED', 'FAILED', 'DEAD'])(
    'given status %s, when parsed, then it filters by it',
    (status) => {
      expect(value(parseDeliveryListQuery({ status }, 'client'))).toStrictEqual({
        page: { limit: 100, offset: 0 },
        status,
      });
    },
  );

  it('given every parameter an SRE may give, when parsed, then all are kept', () => {
    expect(
      value(
        parseDeliveryListQuery(
          {
            status: 'DEAD',
            since: '2026-01-01T00:00:00Z',
            until: '2026-01-02T00:00:00Z',
            clientId: 'rsp-1',
            limit: '10',
            offset: '20',
          },
          'admin',
        ),
      ),
    ).toStrictEqual({
      page: { limit: 10, offset: 20 },
      status: 'DEAD',
      since: '2026-01-01T00:00:00Z',
      until: '2026-01-02T00:00:00Z',
      clientId: 'rsp-1',
    });
  });

  it('given only since or only until, when parsed, then that bound alone is kept', () => {
    expect(value(parseDeliveryListQuery({ since: '2026-01-01T00:00:00Z' }, 'client'))).toStrictEqual({
      page: { limit: 100, offset: 0 },
      since: '2026-01-01T00:00:00Z',
    });
    expect(value(parseDeliveryListQuery({ until: '2026-01-01T00:00:00Z' }, 'client'))).toStrictEqual({
      page: { limit: 100, offset: 0 },
      until: '2026-01-01T00:00:00Z',
    });
  });

  it('given clientId from an RSP, when parsed, then INVALID_FILTER calls it unknown (an RSP sees its own)', () => {
    expect(failure(parseDeliveryListQuery({ clientId: 'other' }, 'client'))).toEqual({
      code: 'INVALID_FILTER',
      fields: ['clientId'],
      messages: ['clientId is not a known query parameter'],
    });
  });

  it('given an empty clientId from an SRE, when parsed, then INVALID_FILTER says it must not be empty', () => {
    expect(failure(parseDeliveryListQuery({ clientId: ' ' }, 'admin'))).toEqual({
      code: 'INVALID_FILTER',
      fields: ['clientId'],
      messages: ['clientId must not be empty'],
    });
  });

  it.each(['delivered', 'LOST', ''])('given status %j, when parsed, then INVALID_FILTER names the four', (status) => {
    expect(failure(parseDeliveryListQuery({ status }, 'client'))).toEqual({
      code: 'INVALID_FILTER',
      fields: ['status'],
      messages: ['status must be one of PENDING, DELIVERED, FAILED, DEAD'],
    });
  });

  it('given since not before until, when parsed, then INVALID_DATE_RANGE names since', () => {
    for (const until of ['2026-01-01T00:00:00Z', '2025-12-31T23:59:59Z']) {
      expect(failure(parseDeliveryListQuery({ since: '2026-01-01T00:00:00Z', until }, 'client'))).toEqual({
        code: 'INVALID_DATE_RANGE',
        fields: ['since'],
        messages: ['since must be before until'],
      });
    }
  });

  it('given a since that is not a UTC date-time, when parsed, then INVALID_FILTER names it', () => {
    expect(failure(parseDeliveryListQuery({ since: '2026-01-01' }, 'client')).fields).toEqual(['since']);
  });

  it('given a limit of 0, when parsed, then INVALID_LIMIT', () => {
    expect(failure(parseDeliveryListQuery({ limit: '0' }, 'admin')).code).toBe('INVALID_LIMIT');
  });
});

/** The code and every issue (field, rule and message) of a rejected query. */
function rejection<T>(result: Result<T, ValidationFailedError>): { code: string; issues: unknown[] } {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`);
  return { code: result.error.code, issues: result.error.details.issues };
}

const DATE_TIME = 'must be an ISO 8601 UTC date-time ending in Z, like 2024-01-31T09:30:00Z';

describe('the issues of a rejected query', () => {
  it.each<
    [string, () => Result<unknown, ValidationFailedError>, string, { field: string; rule: string; message: string }]
  >([
    [
      'an unknown parameter',
      () => parseLocationListQuery({ sort: 'name' }),
      'INVALID_FILTER',
      { field: 'sort', rule: 'unknownParameter', message: 'sort is not a known query parameter' },
    ],
    [
      'a change feed limit out of range',
      () => parseChangeFeedQuery({ limit: '0' }),
      'INVALID_LIMIT',
      { field: 'limit', rule: 'range', message: 'limit must be an integer from 1 to 1000' },
    ],
    [
      'an empty change feed cursor',
      () => parseChangeFeedQuery({ after: '' }),
      'INVALID_REQUEST',
      { field: 'after', rule: 'cursor', message: "after must be a cursor from a reply's next" },
    ],
    [
      'the groups of a CSV snapshot',
      () => parseSnapshotQuery({ groups: 'true', format: 'csv' }),
      'INVALID_FILTER',
      { field: 'groups', rule: 'jsonOnly', message: 'groups=true needs format=json: CSV records hold no groups' },
    ],
    [
      'a repeated limit',
      () => parseLocationListQuery({ limit: ['1', '2'] }),
      'INVALID_LIMIT',
      { field: 'limit', rule: 'single', message: 'limit must be given once' },
    ],
    [
      'a limit out of range',
      () => parseLocationListQuery({ limit: '1001' }),
      'INVALID_LIMIT',
      { field: 'limit', rule: 'range', message: 'limit must be an integer from 1 to 1000' },
    ],
    [
      'a malformed group id',
      () => parseLocationListQuery({ locationGroupId: 'abc' }),
      'INVALID_FILTER',
      { field: 'locationGroupId', rule: 'uuid', message: 'locationGroupId must be a UUID' },
    ],
    [
      'a repeated group id',
      () => parseLocationListQuery({ addressGroupId: [groupId, groupId] }),
      'INVALID_FILTER',
      { field: 'addressGroupId', rule: 'single', message: 'addressGroupId must be given once' },
    ],
    [
      'a blank name',
      () => parseGroupListQuery({ name: ' ' }, 'OTHER'),
      'INVALID_FILTER',
      { field: 'name', rule: 'nonEmpty', message: 'name must not be empty' },
    ],
    [
      'a repeated name',
      () => parseGroupListQuery({ name: ['a', 'b'] }, 'OTHER'),
      'INVALID_FILTER',
      { field: 'name', rule: 'single', message: 'name must be given once' },
    ],
    [
      'a repeated group type',
      () => parseGroupListQuery({ type: ['OTHER', 'OTHER'] }, 'OTHER'),
      'INVALID_FILTER',
      { field: 'type', rule: 'single', message: 'type must be given once' },
    ],
    [
      'another group type',
      () => parseGroupListQuery({ type: 'OTHER' }, 'MDU_COMPLEX'),
      'INVALID_FILTER',
      { field: 'type', rule: 'enum', message: 'type must be MDU_COMPLEX' },
    ],
    [
      'a boolean that is neither true nor false',
      () => parseStatisticsQuery({ hasAddress: 'yes' }),
      'INVALID_FILTER',
      { field: 'hasAddress', rule: 'boolean', message: 'hasAddress must be true or false' },
    ],
    [
      'a statistics date-time without Z',
      () => parseStatisticsQuery({ modifiedBefore: '2024-01-01T00:00:00+01:00' }),
      'INVALID_FILTER',
      { field: 'modifiedBefore', rule: 'dateTime', message: `modifiedBefore ${DATE_TIME}` },
    ],
    [
      'unknown statuses',
      () => parseStatisticsQuery({ status: 'LIVE, ACTIVE,active' }),
      'INVALID_STATUS',
      {
        field: 'status',
        rule: 'enum',
        message:
          'status must be a comma-separated list of PLANNED, CONSTRUCTION, ACTIVE, INACTIVE, CANCELLED, RETIRED; ' +
          'not "LIVE", "active"',
      },
    ],
    [
      'a country that is not two letters',
      () => parseStatisticsQuery({ country: 'USA' }),
      'INVALID_FILTER',
      { field: 'country', rule: 'countryCode', message: 'country must be an ISO 3166-1 alpha-2 code' },
    ],
    [
      'a statistics range that ends before it starts',
      () => parseStatisticsQuery({ modifiedSince: '2024-02-01T00:00:00Z', modifiedBefore: '2024-01-01T00:00:00Z' }),
      'INVALID_DATE_RANGE',
      { field: 'modifiedSince', rule: 'dateRange', message: 'modifiedSince must be before modifiedBefore' },
    ],
    [
      'a snapshot modifiedSince that is not a UTC date-time',
      () => parseSnapshotQuery({ modifiedSince: '2024-05-01' }),
      'INVALID_DATE_RANGE',
      { field: 'modifiedSince', rule: 'dateTime', message: `modifiedSince ${DATE_TIME}` },
    ],
    [
      'a repeated snapshot modifiedSince',
      () => parseSnapshotQuery({ modifiedSince: ['2024-05-01T00:00:00Z', '2024-05-01T00:00:00Z'] }),
      'INVALID_DATE_RANGE',
      { field: 'modifiedSince', rule: 'single', message: 'modifiedSince must be given once' },
    ],
    [
      'an unknown snapshot format',
      () => parseSnapshotQuery({ format: 'xml' }),
      'INVALID_FORMAT',
      { field: 'format', rule: 'enum', message: 'format must be json or csv' },
    ],
    [
      'a repeated delivery status',
      () => parseDeliveryListQuery({ status: ['DEAD', 'DEAD'] }, 'client'),
      'INVALID_FILTER',
      { field: 'status', rule: 'single', message: 'status must be given once' },
    ],
    [
      'an unknown delivery status',
      () => parseDeliveryListQuery({ status: 'LOST' }, 'admin'),
      'INVALID_FILTER',
      { field: 'status', rule: 'enum', message: 'status must be one of PENDING, DELIVERED, FAILED, DEAD' },
    ],
    [
      'a repeated delivery since',
      () => parseDeliveryListQuery({ since: ['2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z'] }, 'client'),
      'INVALID_FILTER',
      { field: 'since', rule: 'single', message: 'since must be given once' },
    ],
    [
      'a delivery since that is not a UTC date-time',
      () => parseDeliveryListQuery({ since: 'yesterday' }, 'client'),
      'INVALID_FILTER',
      { field: 'since', rule: 'dateTime', message: `since ${DATE_TIME}` },
    ],
    [
      'a delivery range that ends before it starts',
      () => parseDeliveryListQuery({ since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' }, 'admin'),
      'INVALID_DATE_RANGE',
      { field: 'since', rule: 'dateRange', message: 'since must be before until' },
    ],
  ])('given %s, when parsed, then the one issue names its field, rule and message', (_case, parse, code, issue) => {
    expect(rejection(parse())).toStrictEqual({ code, issues: [issue] });
  });

  it('given clientId from an RSP, when parsed, then only the unknown parameter is reported, not its value', () => {
    expect(rejection(parseDeliveryListQuery({ clientId: ' ' }, 'client'))).toStrictEqual({
      code: 'INVALID_FILTER',
      issues: [{ field: 'clientId', rule: 'unknownParameter', message: 'clientId is not a known query parameter' }],
    });
  });
});

describe('the parameters left out of a query', () => {
  it('given offset 0 explicitly, when parsed, then it is accepted', () => {
    expect(value(parseLocationListQuery({ limit: '3', offset: '0' }))).toStrictEqual({ page: { limit: 3, offset: 0 } });
  });

  it('given no optional parameter, when parsed, then each query holds no key for them', () => {
    expect(value(parseLocationListQuery({}))).toStrictEqual({ page: { limit: 100, offset: 0 } });
    expect(value(parseLocationListQuery({ addressGroupId: groupId }))).toStrictEqual({
      page: { limit: 100, offset: 0 },
      addressGroupId: groupId,
    });
    expect(value(parseLocationListQuery({ locationGroupId: groupId }))).toStrictEqual({
      page: { limit: 100, offset: 0 },
      locationGroupId: groupId,
    });
    expect(value(parseGroupListQuery({ type: 'OTHER' }, 'OTHER'))).toStrictEqual({
      page: { limit: 100, offset: 0 },
      type: 'OTHER',
    });
    expect(value(parseGroupListQuery({ name: 'Phase' }, 'OTHER'))).toStrictEqual({
      page: { limit: 100, offset: 0 },
      name: 'Phase',
    });
    expect(value(parseSnapshotQuery({}))).toStrictEqual({});
    expect(value(parseStatisticsQuery({}))).toStrictEqual({});
  });

  it('given only one bound of the statistics range, when parsed, then that bound alone is kept', () => {
    expect(value(parseStatisticsQuery({ modifiedSince: '2024-01-01T00:00:00Z' }))).toStrictEqual({
      modifiedSince: '2024-01-01T00:00:00Z',
    });
    expect(value(parseStatisticsQuery({ modifiedBefore: '2024-01-01T00:00:00Z' }))).toStrictEqual({
      modifiedBefore: '2024-01-01T00:00:00Z',
    });
  });
});

describe('parseChangeFeedQuery', () => {
  it('given no parameters, when parsed, then 100 changes from the oldest retained (no after key)', () => {
    expect(value(parseChangeFeedQuery({}))).toStrictEqual({ limit: 100 });
  });

  it('given limit 1, when parsed, then one change a page', () => {
    expect(value(parseChangeFeedQuery({ limit: '1' }))).toStrictEqual({ limit: 1 });
  });

  it('given after and limit 1000, when parsed, then both are kept (the cursor still encoded)', () => {
    expect(value(parseChangeFeedQuery({ after: 'abc', limit: '1000' }))).toEqual({ limit: 1000, after: 'abc' });
  });

  it.each(['0', '1001', '-1', 'x', ''])('given limit %j, when parsed, then INVALID_LIMIT names limit', (limit) => {
    expect(failure(parseChangeFeedQuery({ limit }))).toMatchObject({ code: 'INVALID_LIMIT', fields: ['limit'] });
  });

  it.each([[''], [['a', 'b']]])('given after %j, when parsed, then INVALID_REQUEST names after', (after) => {
    expect(failure(parseChangeFeedQuery({ after }))).toMatchObject({ code: 'INVALID_REQUEST', fields: ['after'] });
  });

  it('given an unknown parameter, when parsed, then INVALID_FILTER names it', () => {
    expect(failure(parseChangeFeedQuery({ since: '2024-01-01T00:00:00Z' }))).toMatchObject({
      code: 'INVALID_FILTER',
      fields: ['since'],
    });
  });
});

describe('parseDigestQuery', () => {
  it('given no parameters, when parsed, then it is the root with depth 1', () => {
    expect(value(parseDigestQuery({}))).toEqual({ prefix: '', depth: 1 });
  });

  it('given an upper-case prefix and a depth, when parsed, then the prefix is lower case', () => {
    expect(value(parseDigestQuery({ prefix: 'AbC', depth: '3' }))).toEqual({ prefix: 'abc', depth: 3 });
    expect(value(parseDigestQuery({ prefix: '0123456', depth: '1' }))).toEqual({ prefix: '0123456', depth: 1 });
  });

  it.each([['g'], ['12345678'], ['-1'], [' a']])(
    'given the prefix %j, when parsed, then INVALID_FILTER names prefix',
    (prefix) => {
      expect(failureWithRules(parseDigestQuery({ prefix }))).toEqual({
        code: 'INVALID_FILTER',
        fields: ['prefix'],
        rules: ['hexPrefix'],
        messages: ['prefix must be 0 to 7 hex digits (0-9, a-f)'],
      });
    },
  );

  it.each([['0'], ['4'], ['1.5'], ['01'], ['x'], ['']])(
    'given the depth %j, when parsed, then INVALID_FILTER names depth',
    (depth) => {
      expect(failureWithRules(parseDigestQuery({ depth }))).toEqual({
        code: 'INVALID_FILTER',
        fields: ['depth'],
        rules: ['range'],
        messages: ['depth must be an integer from 1 to 3'],
      });
    },
  );

  it('given prefix and depth deeper than 8 hex digits, when parsed, then INVALID_FILTER names depth', () => {
    expect(failureWithRules(parseDigestQuery({ prefix: '012345', depth: '3' }))).toEqual({
      code: 'INVALID_FILTER',
      fields: ['depth'],
      rules: ['maxPrefixLength'],
      messages: ['the length of prefix plus depth must be at most 8 (children are at most 8 hex digits)'],
    });
    expect(value(parseDigestQuery({ prefix: '01234', depth: '3' }))).toEqual({ prefix: '01234', depth: 3 });
  });

  it('given an unknown or repeated parameter, when parsed, then INVALID_FILTER names it', () => {
    expect(failure(parseDigestQuery({ limit: '1' }))).toMatchObject({ code: 'INVALID_FILTER', fields: ['limit'] });
    expect(failure(parseDigestQuery({ prefix: ['a', 'b'] }))).toMatchObject({
      code: 'INVALID_FILTER',
      fields: ['prefix'],
    });
    expect(failure(parseDigestQuery({ depth: ['1', '2'] }))).toMatchObject({
      code: 'INVALID_FILTER',
      fields: ['depth'],
    });
  });
});

describe('parseDigestEntriesQuery', () => {
  it('given no prefix or 8 hex digits, when parsed, then it is kept in lower case', () => {
    expect(value(parseDigestEntriesQuery({}))).toEqual({ prefix: '' });
    expect(value(parseDigestEntriesQuery({ prefix: 'ABCDEF01' }))).toEqual({ prefix: 'abcdef01' });
  });

  it('given 9 digits, a depth or a non-hex prefix, when parsed, then INVALID_FILTER names the parameter', () => {
    expect(failure(parseDigestEntriesQuery({ prefix: '012345678' }))).toMatchObject({ fields: ['prefix'] });
    expect(failure(parseDigestEntriesQuery({ depth: '1' }))).toMatchObject({
      code: 'INVALID_FILTER',
      fields: ['depth'],
    });
    expect(failureWithRules(parseDigestEntriesQuery({ prefix: 'xyz' }))).toEqual({
      code: 'INVALID_FILTER',
      fields: ['prefix'],
      rules: ['hexPrefix'],
      messages: ['prefix must be 0 to 8 hex digits (0-9, a-f)'],
    });
  });
});
