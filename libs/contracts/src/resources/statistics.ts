import { z } from 'zod';
import { countSchema, utcDateTimeSchema } from '../primitives';
import { SERVICEABILITY_STATUSES } from './location';

/** How a location is located: countByType's addressOnly (address, no coordinates), coordinatesOnly, addressAndCoordinates. */
export const LOCATION_SHAPES = ['addressOnly', 'coordinatesOnly', 'addressAndCoordinates'] as const;
/** One of the three location shapes. */
export type LocationShape = (typeof LOCATION_SHAPES)[number];

/** Whether a location belongs to a location group: countByType's grouped / standalone. */
export const LOCATION_GROUPINGS = ['grouped', 'standalone'] as const;
/** Grouped or standalone. */
export type LocationGrouping = (typeof LOCATION_GROUPINGS)[number];

function countsOf<K extends string>(keys: readonly K[]) {
  return z.object(Object.fromEntries(keys.map((key) => [key, countSchema])) as Record<K, typeof countSchema>).strict();
}

/** Reply of GET /locations/statistics: counts of the locations matching all filters. */
export const statisticsResponseSchema = z
  .object({
    totalCount: countSchema,
    countByStatus: countsOf(SERVICEABILITY_STATUSES),
    countByType: countsOf([...LOCATION_SHAPES, ...LOCATION_GROUPINGS]),
    queryTimestamp: utcDateTimeSchema,
  })
  .strict();
/** Reply of GET /locations/statistics. */
export type StatisticsResponse = z.infer<typeof statisticsResponseSchema>;
