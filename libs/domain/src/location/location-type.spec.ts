import { ValidationFailedError } from '../errors/domain-error';
import { aLocation, aLocationInput, anAddress, thrownBy } from '../testing';
import { classifyLocation } from './location-type';

const groupId = '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50';

describe('classifyLocation', () => {
  it.each([
    [
      'address and coordinates, in a group',
      aLocationInput({ locationGroupId: groupId }),
      'addressAndCoordinates',
      'grouped',
    ],
    ['address and coordinates, no group', aLocationInput(), 'addressAndCoordinates', 'standalone'],
    [
      'an address only, in a group',
      aLocationInput({ coordinates: undefined, locationGroupId: groupId }),
      'addressOnly',
      'grouped',
    ],
    ['an address only, no group', aLocation({ coordinates: undefined }), 'addressOnly', 'standalone'],
    [
      'coordinates only, in a group',
      aLocation({ address: undefined, locationGroupId: groupId }),
      'coordinatesOnly',
      'grouped',
    ],
    ['coordinates only, no group', aLocationInput({ address: undefined }), 'coordinatesOnly', 'standalone'],
  ])('given a location with %s, when classified, then it is %s and %s', (_case, location, shape, grouping) => {
    expect(classifyLocation(location)).toEqual({ shape, grouping });
  });

  it('given a location with an address group but no location group, when classified, then it is standalone', () => {
    const location = aLocationInput({ address: anAddress({ addressGroupId: groupId }) });
    expect(classifyLocation(location).grouping).toBe('standalone');
  });

  it('given a location with neither address nor coordinates, when classified, then MISSING_LOCATION_DATA is thrown', () => {
    const error = thrownBy(() => classifyLocation(aLocationInput({ address: undefined, coordinates: undefined })));
    expect(error).toBeInstanceOf(ValidationFailedError);
    expect(error).toMatchObject({
      code: 'MISSING_LOCATION_DATA',
      message: 'address or coordinates is required; a location with only geography is invalid',
      details: { issues: [{ field: '', rule: 'addressOrCoordinates' }] },
    });
  });
});
