import { issuesOf, sampleLocation } from '../testing/fixtures';
import { locationListSchema } from './read-queries';

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
