import type { LocationGrouping, LocationInput, LocationShape } from '@lx/contracts';
import { ValidationFailedError } from '../errors/domain-error';
import { MISSING_LOCATION_DATA_ISSUE } from './location-validity';

/** The two countByType buckets a location falls into. */
export interface LocationType {
  shape: LocationShape;
  grouping: LocationGrouping;
}

/**
 * Classifies a location per the spec's countByType: addressOnly (address, no coordinates), coordinatesOnly
 * (coordinates, no address), addressAndCoordinates (both); grouped (has a locationGroupId) or standalone.
 * A location with neither address nor coordinates is invalid and throws ValidationFailedError (MISSING_LOCATION_DATA).
 */
export function classifyLocation(
  location: Pick<LocationInput, 'address' | 'coordinates' | 'locationGroupId'>,
): LocationType {
  return { shape: shapeOf(location), grouping: location.locationGroupId === undefined ? 'standalone' : 'grouped' };
}

function shapeOf({ address, coordinates }: Pick<LocationInput, 'address' | 'coordinates'>): LocationShape {
  if (address !== undefined && coordinates !== undefined) return 'addressAndCoordinates';
  if (address !== undefined) return 'addressOnly';
  if (coordinates !== undefined) return 'coordinatesOnly';
  throw new ValidationFailedError([MISSING_LOCATION_DATA_ISSUE], 'MISSING_LOCATION_DATA');
}
