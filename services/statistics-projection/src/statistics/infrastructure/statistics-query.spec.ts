import type { StatisticsFilter } from '@lx/domain';
import { buildStatisticsQuery, sourceFor } from './statistics-query';

const groupId = '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50';

describe('sourceFor', () => {
  it.each<[string, StatisticsFilter, string]>([
    ['no filter', {}, 'counters'],
    [
      'status, booleans',
      { statuses: ['ACTIVE'], hasAddress: true, hasCoordinates: false, hasLocationGroup: true },
      'counters',
    ],
    ['country', { country: 'US' }, 'geoCounters'],
    ['region and status', { region: 'CO', statuses: ['ACTIVE'] }, 'geoCounters'],
    ['locality', { locality: 'Denver' }, 'facts'],
    ['postal code and country', { postalCode: '80202', country: 'US' }, 'facts'],
    ['location group', { locationGroupId: groupId }, 'facts'],
    ['address group', { addressGroupId: groupId }, 'facts'],
    ['modifiedSince', { modifiedSince: '2024-01-01T00:00:00Z' }, 'dayCounters'],
    ['modifiedBefore and status', { modifiedBefore: '2024-01-01T00:00:00Z', statuses: ['ACTIVE'] }, 'dayCounters'],
    ['modifiedSince and region', { modifiedSince: '2024-01-01T00:00:00Z', region: 'CO' }, 'facts'],
    ['modifiedSince and locality', { modifiedSince: '2024-01-01T00:00:00Z', locality: 'Denver' }, 'facts'],
  ])('given %s, when routed, then the %s answer', (_case, filter, source) => {
    expect(sourceFor(filter)).toBe(source);
  });
});

describe('buildStatisticsQuery', () => {
  it('given no filter, when built, then it sums the counters without a WHERE', () => {
    const query = buildStatisticsQuery({});
    expect(query.text).toMatch(/^SELECT coalesce\(sum\(locations\), 0\) AS total, .* FROM location_counters$/);
    expect(query.text).toContain(`coalesce(sum(locations) FILTER (WHERE status = 'RETIRED'), 0) AS "RETIRED"`);
    expect(query.text).toContain('FILTER (WHERE has_location_group), 0) AS grouped');
    expect(query.values).toEqual([]);
  });

  it('given counter filters, when built, then each is a parameter or a constant condition', () => {
    const query = buildStatisticsQuery({ statuses: ['ACTIVE', 'PLANNED'], hasAddress: true, hasLocationGroup: false });
    expect(query.text).toMatch(
      / WHERE status = ANY\(\$1::text\[\]\) AND has_address = \$2::boolean AND has_location_group = false$/,
    );
    expect(query.values).toEqual([['ACTIVE', 'PLANNED'], true]);
  });

  it('given every filter, when built, then the facts are counted with all of them combined by AND', () => {
    const query = buildStatisticsQuery({
      statuses: ['ACTIVE'],
      modifiedSince: '2024-01-01T00:00:00Z',
      modifiedBefore: '2024-02-01T00:00:00Z',
      hasAddress: false,
      hasCoordinates: true,
      hasLocationGroup: true,
      addressGroupId: groupId,
      locationGroupId: groupId,
      country: 'US',
      region: 'CO',
      locality: 'Denver',
      postalCode: '80202',
    });
    expect(query.source).toBe('facts');
    expect(query.text).toContain('SELECT coalesce(count(*), 0) AS total');
    expect(query.text).toContain('FILTER (WHERE location_group_id IS NOT NULL), 0) AS grouped');
    expect(query.text.split(' WHERE ').pop()).toBe(
      [
        'status = ANY($1::text[])',
        'updated_at > $2::timestamptz',
        'updated_at < $3::timestamptz',
        'has_address = $4::boolean',
        'has_coordinates = $5::boolean',
        'location_group_id IS NOT NULL',
        'address_group_id = $6::uuid',
        'location_group_id = $7::uuid',
        'country = $8',
        'region = $9',
        'locality = $10',
        'postal_code = $11',
      ].join(' AND '),
    );
    expect(query.values).toEqual([
      ['ACTIVE'],
      '2024-01-01T00:00:00Z',
      '2024-02-01T00:00:00Z',
      false,
      true,
      groupId,
      groupId,
      'US',
      'CO',
      'Denver',
      '80202',
    ]);
  });

  it('given hasLocationGroup false over the facts, when built, then it asks for no location group', () => {
    expect(buildStatisticsQuery({ locality: 'x', hasLocationGroup: false }).text).toContain(
      'location_group_id IS NULL',
    );
  });
});

describe('buildStatisticsQuery over day counters', () => {
  it('given modifiedSince and modifiedBefore, when built, then whole days come from the day counters and both boundary days from the facts', () => {
    const query = buildStatisticsQuery({
      modifiedSince: '2024-01-01T10:00:00Z',
      modifiedBefore: '2024-03-01T12:00:00Z',
      statuses: ['ACTIVE'],
      hasLocationGroup: true,
    });
    expect(query.source).toBe('dayCounters');
    expect(query.values).toEqual(['2024-01-01T10:00:00Z', '2024-03-01T12:00:00Z', ['ACTIVE']]);
    const [days, sinceDay, beforeDay] = query.text.split(' UNION ALL ');
    expect(days).toContain(
      "FROM location_day_counters\n      WHERE day > ($1::timestamptz AT TIME ZONE 'UTC')::date AND day < ($2::timestamptz AT TIME ZONE 'UTC')::date",
    );
    expect(sinceDay).toContain(
      "WHERE updated_at > $1::timestamptz AND updated_at < ((($1::timestamptz AT TIME ZONE 'UTC')::date + 1)::timestamp AT TIME ZONE 'UTC') AND updated_at < $2::timestamptz",
    );
    expect(beforeDay).toContain(
      "WHERE updated_at >= (($2::timestamptz AT TIME ZONE 'UTC')::date::timestamp AT TIME ZONE 'UTC') AND updated_at < $2::timestamptz AND ($1::timestamptz AT TIME ZONE 'UTC')::date < ($2::timestamptz AT TIME ZONE 'UTC')::date",
    );
    expect(beforeDay).toMatch(/\) AS matching WHERE status = ANY\(\$3::text\[\]\) AND has_location_group = true$/);
  });

  it('given only modifiedSince, when built, then the days after its day and the rest of its day are counted', () => {
    const parts = buildStatisticsQuery({ modifiedSince: '2024-01-01T10:00:00Z' }).text.split(' UNION ALL ');
    expect(parts).toHaveLength(2);
    expect(parts[0]).toContain("WHERE day > ($1::timestamptz AT TIME ZONE 'UTC')::date");
    expect(parts[0]).not.toContain('day <');
  });

  it('given only modifiedBefore, when built, then the days before its day and the start of its day are counted', () => {
    const parts = buildStatisticsQuery({ modifiedBefore: '2024-01-01T10:00:00Z' }).text.split(' UNION ALL ');
    expect(parts).toHaveLength(2);
    expect(parts[0]).toContain("WHERE day < ($1::timestamptz AT TIME ZONE 'UTC')::date");
    expect(parts[1]).toContain(
      "updated_at >= (($1::timestamptz AT TIME ZONE 'UTC')::date::timestamp AT TIME ZONE 'UTC')",
    );
  });
});
