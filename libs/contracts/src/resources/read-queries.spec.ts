import { issuesOf, sampleLocation } from '../testing/fixtures';
import { locationListSchema, watermarkReplySchema } from './read-queries';

describe('locationListSchema', () => {
  it('given a page of locations with its pagination, when validated, then it is accepted', () => {
    const page = { locations: [sampleLocation], pagination: { limit: 100, offset: 0, total: 1 } };
    expect(issuesOf(locationListSchema, page)).toEqual([]);
  });

  it('given a page without pagination, when validated, then pagination is required', () => {
    expect(issuesOf(locationListSchema, { locations: [] })).toEqual([
      { field: 'pagination', rule: 'required', message: 'pagination is required' },
    ]);
  });
});

describe('watermarkReplySchema', () => {
  it('given a watermark as a UTC date-time, when validated, then it is accepted', () => {
    expect(issuesOf(watermarkReplySchema, { watermark: '2024-05-01T10:00:00.123Z' })).toEqual([]);
  });

  it.each([
    ['a time with an offset', { watermark: '2024-05-01T12:00:00.123+02:00' }],
    ['no watermark', {}],
    ['another field', { watermark: '2024-05-01T10:00:00.123Z', position: 3 }],
  ])('given %s, when validated, then it is refused', (_name, reply) => {
    expect(issuesOf(watermarkReplySchema, reply)).not.toEqual([]);
  });
});
