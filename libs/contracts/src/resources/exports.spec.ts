import { issuesOf, sampleLocation } from '../testing/fixtures';
import {
  exportAcceptedSchema,
  exportListReplySchema,
  exportNotificationSchema,
  exportRequestBodySchema,
  exportStatusReplySchema,
  IDEMPOTENCY_KEY_HEADER,
  jsonExportFileSchema,
} from './exports';

const requestId = '9e8d7c6b-5a4f-4e3d-9c2b-1a0f9e8d7c6b';
const completed = {
  requestId,
  status: 'COMPLETED',
  exportUrl: 'https://exports.example.com/9e8d7c6b.json?X-Amz-Signature=abc',
  downloadExpiresAt: '2024-03-02T10:00:00Z',
  exportTimestamp: '2024-03-01T10:00:00Z',
  totalCount: 1250,
};

describe('exportRequestBodySchema', () => {
  it.each([{ format: 'json' }, { format: 'csv', modifiedSince: '2024-03-01T00:00:00Z' }])(
    'given %p, when validated, then the request is accepted',
    (body) => expect(issuesOf(exportRequestBodySchema, body)).toEqual([]),
  );

  it.each(['xml', 'JSON'])('given format %p, when validated, then "format must be one of json, csv"', (format) => {
    expect(issuesOf(exportRequestBodySchema, { format })).toEqual([
      { field: 'format', rule: 'enum', message: 'format must be one of json, csv' },
    ]);
  });

  it('given no format, when validated, then format is required', () => {
    expect(issuesOf(exportRequestBodySchema, {})).toEqual([
      { field: 'format', rule: 'required', message: 'format is required' },
    ]);
  });

  it.each(['2024-03-01', '2024-03-01T00:00:00+01:00', 'yesterday'])(
    'given modifiedSince %p, when validated, then it must be a UTC date-time',
    (modifiedSince) => {
      expect(issuesOf(exportRequestBodySchema, { format: 'json', modifiedSince })).toEqual([
        {
          field: 'modifiedSince',
          rule: 'dateTime',
          message: 'modifiedSince must be an ISO 8601 UTC date-time ending in Z, like 2024-01-31T09:30:00Z',
        },
      ]);
    },
  );

  it.each([true, false])('given includeVersions %p, when validated, then it is accepted', (includeVersions) => {
    expect(issuesOf(exportRequestBodySchema, { format: 'json', includeVersions })).toEqual([]);
  });

  it.each(['true', 1, null])(
    'given includeVersions %p, when validated, then it must be a boolean',
    (includeVersions) => {
      expect(
        issuesOf(exportRequestBodySchema, { format: 'json', includeVersions }).map((issue) => issue.field),
      ).toEqual(['includeVersions']);
    },
  );

  it('given the filters object of the usage sketch, when validated, then a group id is accepted', () => {
    expect(issuesOf(exportRequestBodySchema, { format: 'json', filters: { locationGroupId: requestId } })).toEqual([]);
  });

  it('given a malformed group id or an unknown filter, when validated, then each is named', () => {
    expect(
      issuesOf(exportRequestBodySchema, { format: 'json', filters: { locationGroupId: 'x', region: 'VIC' } }).map(
        (issue) => issue.field,
      ),
    ).toEqual(['filters.locationGroupId', 'filters.region']);
  });

  it('given an unknown body field, when validated, then it is named', () => {
    expect(issuesOf(exportRequestBodySchema, { format: 'json', since: 'x' })).toEqual([
      { field: 'since', rule: 'unknownField', message: 'unknown field "since"' },
    ]);
  });
});

describe('exportAcceptedSchema', () => {
  it('given requestId, PENDING and a message, when validated, then the reply is accepted', () => {
    expect(issuesOf(exportAcceptedSchema, { requestId, status: 'PENDING', message: 'Export request queued' })).toEqual(
      [],
    );
  });

  it('given a status other than PENDING, when validated, then it must be PENDING', () => {
    expect(issuesOf(exportAcceptedSchema, { requestId, status: 'COMPLETED', message: 'done' })).toEqual([
      { field: 'status', rule: 'enum', message: 'status must be PENDING' },
    ]);
  });
});

describe('exportStatusReplySchema', () => {
  const asked = { requestId, format: 'json', createdAt: '2024-03-01T09:59:00Z' };
  const completedReply = { ...asked, ...completed, sha256: 'a'.repeat(64), sizeBytes: 2048 };
  const failedReply = {
    ...asked,
    status: 'FAILED',
    error: { code: 'EXPORT_GENERATION_FAILED', message: 'Object storage unavailable' },
  };

  it.each([{ ...asked, status: 'PENDING', progress: { written: 10, total: 20 } }, completedReply, failedReply])(
    'given %p, when validated, then the reply is accepted',
    (reply) => expect(issuesOf(exportStatusReplySchema, reply)).toEqual([]),
  );

  it.each(['a'.repeat(63), 'a'.repeat(65), `x${'a'.repeat(64)}`, `${'a'.repeat(64)}x`, 'A'.repeat(64)])(
    'given the sha256 %s, which is not 64 lower-case hex digits, when validated, then the reply is refused',
    (sha256) => {
      expect(issuesOf(exportStatusReplySchema, { ...completedReply, sha256 })).toEqual([
        { field: 'sha256', rule: 'format', message: 'sha256 has an invalid format' },
      ]);
    },
  );

  it('given PENDING with an exportUrl, when validated, then the URL is not allowed yet', () => {
    const pending = { ...asked, status: 'PENDING', progress: { written: 0 }, exportUrl: completed.exportUrl };
    expect(issuesOf(exportStatusReplySchema, pending)).toEqual([
      { field: 'exportUrl', rule: 'unknownField', message: 'unknown field "exportUrl"' },
    ]);
  });

  it('given COMPLETED without download fields, when validated, then each is required', () => {
    expect(issuesOf(exportStatusReplySchema, { ...asked, status: 'COMPLETED' }).map((issue) => issue.message)).toEqual([
      'exportUrl is required',
      'downloadExpiresAt is required',
      'exportTimestamp is required',
      'totalCount is required',
      'sha256 is required',
      'sizeBytes is required',
    ]);
  });

  it('given FAILED without its error, when validated, then the error is required', () => {
    expect(issuesOf(exportStatusReplySchema, { ...asked, status: 'FAILED' })).toEqual([
      { field: 'error', rule: 'required', message: 'error is required' },
    ]);
  });

  it('given the OAF-100 PROCESSING state, when validated, then the spec statuses are listed', () => {
    expect(issuesOf(exportStatusReplySchema, { ...asked, status: 'PROCESSING' })).toEqual([
      { field: 'status', rule: 'enum', message: 'status must be one of PENDING, COMPLETED, FAILED' },
    ]);
  });
});

describe('exportListReplySchema', () => {
  const reply = {
    exports: [
      { requestId, format: 'csv', createdAt: '2024-03-01T09:59:00Z', status: 'PENDING', progress: { written: 0 } },
    ],
    pagination: { limit: 20, offset: 0, total: 1 },
  };

  it('given a page of exports with its pagination, when validated, then it is accepted', () => {
    expect(issuesOf(exportListReplySchema, reply)).toEqual([]);
  });

  it('given a total past the exact count, when validated, then the estimate flag is accepted, as on every list', () => {
    const estimated = { ...reply, pagination: { limit: 20, offset: 0, total: 25_000, totalEstimated: true } };
    expect(issuesOf(exportListReplySchema, estimated)).toEqual([]);
  });

  it('given a page without pagination or with an unknown paging field, when validated, then each is named', () => {
    expect(issuesOf(exportListReplySchema, { exports: [] })).toEqual([
      { field: 'pagination', rule: 'required', message: 'pagination is required' },
    ]);
    expect(issuesOf(exportListReplySchema, { ...reply, pagination: { ...reply.pagination, page: 1 } })).toEqual([
      { field: 'pagination.page', rule: 'unknownField', message: 'unknown field "pagination.page"' },
    ]);
    expect(issuesOf(exportListReplySchema, { ...reply, pagination: { limit: 20, offset: 0 } })).toEqual([
      { field: 'pagination.total', rule: 'required', message: 'pagination.total is required' },
    ]);
  });
});

describe('IDEMPOTENCY_KEY_HEADER', () => {
  it('given the header name, when read, then it is Idempotency-Key in the lower case Node gives header names', () => {
    expect(IDEMPOTENCY_KEY_HEADER).toBe('idempotency-key');
  });
});

describe('exportNotificationSchema', () => {
  const failed = {
    requestId,
    status: 'FAILED',
    error: { code: 'EXPORT_GENERATION_FAILED', message: 'Object storage unavailable' },
  };

  it.each([completed, failed])('given %p, when validated, then the notification is accepted', (notification) => {
    expect(issuesOf(exportNotificationSchema, notification)).toEqual([]);
  });

  it('given a PENDING notification, when validated, then only COMPLETED and FAILED are sent', () => {
    expect(issuesOf(exportNotificationSchema, { requestId, status: 'PENDING' })).toEqual([
      { field: 'status', rule: 'enum', message: 'status must be one of COMPLETED, FAILED' },
    ]);
  });

  it('given FAILED without error, when validated, then error is required', () => {
    expect(issuesOf(exportNotificationSchema, { requestId, status: 'FAILED' })).toEqual([
      { field: 'error', rule: 'required', message: 'error is required' },
    ]);
  });

  it('given FAILED with an unknown error code, when validated, then the code must be a known one', () => {
    const issues = issuesOf(exportNotificationSchema, { ...failed, error: { code: 'OOPS', message: 'x' } });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ field: 'error.code', rule: 'enum' });
    expect(issues[0]?.message).toMatch(/^error\.code must be one of INVALID_REQUEST, .*EXPORT_GENERATION_FAILED/);
  });

  it('given a non-http exportUrl, when validated, then it must be an http(s) URL', () => {
    expect(issuesOf(exportNotificationSchema, { ...completed, exportUrl: 'file:///tmp/x.json' })).toEqual([
      { field: 'exportUrl', rule: 'url', message: 'exportUrl must be an absolute http or https URL' },
    ]);
  });
});

describe('jsonExportFileSchema', () => {
  it('given exportTimestamp, totalCount and full locations, when validated, then the file is accepted', () => {
    expect(
      issuesOf(jsonExportFileSchema, {
        exportTimestamp: '2024-03-01T10:00:00Z',
        totalCount: 1,
        locations: [sampleLocation],
      }),
    ).toEqual([]);
  });

  it('given the group arrays, a tombstone among them, when validated, then the file is accepted', () => {
    expect(
      issuesOf(jsonExportFileSchema, {
        exportTimestamp: '2024-03-01T10:00:00Z',
        totalCount: 0,
        locations: [],
        locationGroups: [{ id: sampleLocation.id, name: 'Phase 1', type: 'OTHER' }],
        addressGroups: [
          { id: sampleLocation.id, name: 'Tower A', type: 'MDU_COMPLEX', deletedAt: '2024-02-29T08:00:00.000Z' },
        ],
      }),
    ).toEqual([]);
  });

  it('given an address group under locationGroups, when validated, then its type is named', () => {
    expect(
      issuesOf(jsonExportFileSchema, {
        exportTimestamp: '2024-03-01T10:00:00Z',
        totalCount: 0,
        locations: [],
        locationGroups: [{ id: sampleLocation.id, name: 'Tower A', type: 'MDU_COMPLEX' }],
      }),
    ).toEqual([{ field: 'locationGroups[0].type', rule: 'enum', message: 'locationGroups[0].type must be OTHER' }]);
  });

  it('given includeVersions, when validated, then every location and group item may end with its version', () => {
    expect(
      issuesOf(jsonExportFileSchema, {
        exportTimestamp: '2024-03-01T10:00:00Z',
        totalCount: 1,
        locations: [{ ...sampleLocation, version: 3 }],
        locationGroups: [{ id: sampleLocation.id, name: 'Phase 1', type: 'OTHER', version: 1 }],
        addressGroups: [
          {
            id: sampleLocation.id,
            name: 'Tower A',
            type: 'MDU_COMPLEX',
            deletedAt: '2024-02-29T08:00:00Z',
            version: 4,
          },
        ],
      }),
    ).toEqual([]);
  });

  it.each([0, 1.5, '2'])('given a version %p, when validated, then it must be a positive integer', (version) => {
    expect(
      issuesOf(jsonExportFileSchema, {
        exportTimestamp: '2024-03-01T10:00:00Z',
        totalCount: 1,
        locations: [{ ...sampleLocation, version }],
        locationGroups: [{ id: sampleLocation.id, name: 'Phase 1', type: 'OTHER', version }],
      }).map((issue) => issue.field),
    ).toEqual(['locations[0].version', 'locationGroups[0].version']);
  });

  it('given a location without id, when validated, then the item is named by index', () => {
    const { id: _id, ...withoutId } = sampleLocation;
    expect(
      issuesOf(jsonExportFileSchema, {
        exportTimestamp: '2024-03-01T10:00:00Z',
        totalCount: 1,
        locations: [withoutId],
      }),
    ).toEqual([{ field: 'locations[0].id', rule: 'required', message: 'locations[0].id is required' }]);
  });
});
