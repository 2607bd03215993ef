import type { StatisticsFilter } from '@lx/domain';
import { buildStatisticsQuery, sourceFor } from './statistics-query';

/** A text matched literally inside a RegExp. */
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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
    ['location group', { locationGroupId: groupId }, 'rollups'],
    ['location group and region', { locationGroupId: groupId, region: 'CO' }, 'rollups'],
    ['location group and locality', { locationGroupId: groupId, locality: 'Denver' }, 'facts'],
    ['address group', { addressGroupId: groupId }, 'facts'],
    ['modifiedSince', { modifiedSince: '2024-01-01T00:00:00Z' }, 'rollups'],
    ['modifiedBefore and status', { modifiedBefore: '2024-01-01T00:00:00Z', statuses: ['ACTIVE'] }, 'rollups'],
    ['modifiedSince and region', { modifiedSince: '2024-01-01T00:00:00Z', region: 'CO' }, 'rollups'],
    [
      'modifiedBefore and location group',
      { modifiedBefore: '2024-01-01T00:00:00Z', locationGroupId: groupId },
      'rollups',
    ],
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

describe('buildStatisticsQuery over the rollups', () => {
  const since = "($1::timestamptz AT TIME ZONE 'UTC')::date";
  const monthOf = (day: string) => `(${day} - extract(day FROM ${day})::integer + 1)`;
  const monthAfter = (month: string) => `(${month} + interval '1 month')::date`;
  const all = "location_group_id = '' AND country = '' AND region = ''";

  it("given modifiedSince and modifiedBefore, when built, then whole months, the edge months' whole days and both edge days are counted, each a range of period", () => {
    const query = buildStatisticsQuery({
      modifiedSince: '2024-01-01T10:00:00Z',
      modifiedBefore: '2024-03-01T12:00:00Z',
      statuses: ['ACTIVE'],
      hasLocationGroup: true,
    });
    expect(query.source).toBe('rollups');
    expect(query.values).toEqual(['2024-01-01T10:00:00Z', '2024-03-01T12:00:00Z', ['ACTIVE']]);
    const before = "($2::timestamptz AT TIME ZONE 'UTC')::date";
    const parts = query.text.split(' UNION ALL ');
    expect(parts).toHaveLength(5);
    const [months, sinceMonthDays, beforeMonthDays, sinceDay, beforeDay] = parts;
    expect(months).toContain(
      `FROM location_rollups\n      WHERE scope = 'all' AND granularity = 'month' AND ${all} AND period >= ${monthAfter(monthOf(since))} AND period < ${monthOf(before)}`,
    );
    expect(sinceMonthDays).toMatch(
      new RegExp(
        `granularity = 'day' AND ${all} AND period > ${escape(since)} AND period < ${escape(monthAfter(monthOf(since)))} AND period < ${escape(before)}$`,
      ),
    );
    expect(beforeMonthDays).toMatch(
      new RegExp(
        `granularity = 'day' AND ${all} AND period >= ${escape(monthOf(before))} AND period < ${escape(before)} AND period >= ${escape(monthAfter(monthOf(since)))}$`,
      ),
    );
    expect(sinceDay).toContain(
      `WHERE updated_at > $1::timestamptz AND updated_at < ((${since} + 1)::timestamp AT TIME ZONE 'UTC') AND updated_at < $2::timestamptz`,
    );
    expect(beforeDay).toContain(
      `WHERE updated_at >= (${before}::timestamp AT TIME ZONE 'UTC') AND updated_at < $2::timestamptz AND ${since} < ${before}`,
    );
    expect(beforeDay).toMatch(/\) AS matching WHERE status = ANY\(\$3::text\[\]\) AND has_location_group = true$/);
  });

  it('given only modifiedSince, when built, then the months after its month, the rest of its month and of its day are counted', () => {
    const parts = buildStatisticsQuery({ modifiedSince: '2024-01-01T10:00:00Z' }).text.split(' UNION ALL ');
    expect(parts).toHaveLength(3);
    expect(parts[0]).toMatch(
      new RegExp(`granularity = 'month' AND ${all} AND period >= ${escape(monthAfter(monthOf(since)))}$`),
    );
    expect(parts[1]).toMatch(
      new RegExp(
        `granularity = 'day' AND ${all} AND period > ${escape(since)} AND period < ${escape(monthAfter(monthOf(since)))}$`,
      ),
    );
    expect(parts[2]).toContain('FROM location_facts WHERE updated_at > $1::timestamptz');
  });

  it('given only modifiedBefore, when built, then the months before its month, the start of its month and of its day are counted', () => {
    const parts = buildStatisticsQuery({ modifiedBefore: '2024-01-01T10:00:00Z' }).text.split(' UNION ALL ');
    expect(parts).toHaveLength(3);
    expect(parts[0]).toMatch(new RegExp(`granularity = 'month' AND ${all} AND period < ${escape(monthOf(since))}$`));
    expect(parts[1]).toMatch(
      new RegExp(
        `granularity = 'day' AND ${all} AND period >= ${escape(monthOf(since))} AND period < ${escape(since)}$`,
      ),
    );
    expect(parts[2]).toContain(
      "updated_at >= (($1::timestamptz AT TIME ZONE 'UTC')::date::timestamp AT TIME ZONE 'UTC')",
    );
  });

  it.each<[string, StatisticsFilter, string, string, unknown[]]>([
    [
      'a country',
      { country: 'US', modifiedSince: 'S' },
      "scope = 'country' AND granularity = 'month' AND location_group_id = '' AND country = $2 AND region = ''",
      'FROM location_facts WHERE country = $2 AND updated_at',
      ['S', 'US'],
    ],
    [
      'a region',
      { region: 'CO', modifiedSince: 'S' },
      "scope = 'region' AND granularity = 'month' AND location_group_id = '' AND region = $2",
      'FROM location_facts WHERE region = $2 AND updated_at',
      ['S', 'CO'],
    ],
    [
      'a country and region',
      { country: 'US', region: 'CO', modifiedBefore: 'B' },
      "scope = 'region' AND granularity = 'month' AND location_group_id = '' AND country = $2 AND region = $3",
      'FROM location_facts WHERE country = $2 AND region = $3 AND updated_at',
      ['B', 'US', 'CO'],
    ],
    [
      'a location group',
      { locationGroupId: groupId, modifiedSince: 'S' },
      "scope = 'group' AND granularity = 'month' AND location_group_id = $2::uuid::text AND country = '' AND region = ''",
      'FROM location_facts WHERE location_group_id = $2::uuid AND updated_at',
      ['S', groupId],
    ],
    [
      'a location group in a country',
      { locationGroupId: groupId, country: 'US', modifiedSince: 'S' },
      "scope = 'group-country' AND granularity = 'month' AND location_group_id = $2::uuid::text AND country = $3 AND region = ''",
      'FROM location_facts WHERE location_group_id = $2::uuid AND country = $3 AND updated_at',
      ['S', groupId, 'US'],
    ],
    [
      'a location group in a region',
      { locationGroupId: groupId, region: 'CO', modifiedSince: 'S' },
      "scope = 'group-region' AND granularity = 'month' AND location_group_id = $2::uuid::text AND region = $3",
      'FROM location_facts WHERE location_group_id = $2::uuid AND region = $3 AND updated_at',
      ['S', groupId, 'CO'],
    ],
  ])(
    'given %s and a date, when built, then its rollup rows and its facts are read',
    (_case, filter, rollups, facts, values) => {
      const query = buildStatisticsQuery(filter);
      expect(query.source).toBe('rollups');
      expect(query.text).toContain(rollups);
      expect(query.text).toContain(facts);
      expect(query.values).toEqual(values);
    },
  );

  it('given a location group alone, when built, then every month row of the group is summed and no fact is read', () => {
    const query = buildStatisticsQuery({ locationGroupId: groupId, statuses: ['ACTIVE'] });
    expect(query.text).not.toContain('UNION ALL');
    expect(query.text).not.toContain('location_facts');
    expect(query.text).toMatch(
      /WHERE scope = 'group' AND granularity = 'month' AND location_group_id = \$1::uuid::text AND country = '' AND region = ''\) AS matching WHERE status = ANY\(\$2::text\[\]\)$/,
    );
  });
});
