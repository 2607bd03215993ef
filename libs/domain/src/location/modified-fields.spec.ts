import { locationModifiedFieldsSchema, validate } from '@lx/contracts';
import { aLocation, anAddress } from '../testing';
import { hasChanges, modifiedFields } from './modified-fields';

describe('modifiedFields', () => {
  it('given two identical locations, when compared, then nothing changed', () => {
    const changes = modifiedFields(aLocation(), aLocation());
    expect(changes).toEqual({});
    expect(hasChanges(changes)).toBe(false);
  });

  it('given a status change, when compared, then only the status leaf appears (OAF-100 example)', () => {
    const changes = modifiedFields(aLocation({ status: 'PLANNED' }), aLocation({ status: 'ACTIVE' }));
    expect(changes).toEqual({ fiberAccessDetails: { serviceability: { status: 'ACTIVE' } } });
    expect(hasChanges(changes)).toBe(true);
  });

  it('given only id, createdAt and updatedAt differ, when compared, then nothing changed', () => {
    const after = aLocation({
      id: '9e8d7c6b-5a4f-4e3d-9c2b-1a0f9e8d7c6b',
      createdAt: '2020-01-01T00:00:00Z',
      updatedAt: '2025-01-01T00:00:00Z',
    });
    expect(modifiedFields(aLocation(), after)).toEqual({});
  });

  it('given a leaf changed next to unchanged siblings, when compared, then the siblings are left out', () => {
    const before = aLocation();
    const after = aLocation({ geography: { ...before.geography, postalCode: '80203' } });
    expect(modifiedFields(before, after)).toEqual({ geography: { postalCode: '80203' } });
  });

  it('given a removed root field and a removed nested field, when compared, then each is null', () => {
    const before = aLocation({
      notes: 'Ring twice',
      address: anAddress({ subunitType: 'APT', subunitIdentifier: '4B' }),
    });
    const after = aLocation({ address: anAddress({ subunitIdentifier: '4B' }) });
    expect(modifiedFields(before, after)).toEqual({ notes: null, address: { subunitType: null } });
  });

  it('given a removed object, when compared, then the object is one null', () => {
    expect(modifiedFields(aLocation({ status: 'ACTIVE' }), aLocation())).toEqual({ fiberAccessDetails: null });
  });

  it('given an added object, when compared, then all its leaves appear with their values', () => {
    const before = aLocation({ coordinates: undefined });
    expect(modifiedFields(before, aLocation())).toEqual({ coordinates: { latitude: 39.7447, longitude: -104.9903 } });
  });

  it('given a field present as undefined on one side and absent on the other, when compared, then nothing changed', () => {
    const location = aLocation();
    expect(modifiedFields({ ...location, notes: undefined }, location)).toEqual({});
    expect(modifiedFields(location, { ...location, notes: undefined })).toEqual({});
  });

  it('given an added empty customFields object, when compared, then it appears empty', () => {
    expect(modifiedFields(aLocation(), aLocation({ customFields: {} }))).toEqual({ customFields: {} });
  });

  describe('customFields', () => {
    it('given an equal array, when compared, then it is unchanged', () => {
      expect(
        modifiedFields(
          aLocation({ customFields: { tags: ['a', 1] } }),
          aLocation({ customFields: { tags: ['a', 1] } }),
        ),
      ).toEqual({});
    });

    it.each([
      [
        ['a', 1],
        ['a', 1, true],
      ],
      [
        ['a', 1],
        [1, 'a'],
      ],
      [['a', 1], []],
      [
        ['a', 'b'],
        ['a', 'c'],
      ],
      ['a', ['a']],
    ])('given %p becoming %p, when compared, then the whole new value appears', (was, now) => {
      expect(
        modifiedFields(aLocation({ customFields: { tags: was } }), aLocation({ customFields: { tags: now } })),
      ).toEqual({
        customFields: { tags: now },
      });
    });

    it('given a key added and a key removed, when compared, then the new value and a null appear', () => {
      const before = aLocation({ customFields: { tier: 'gold', old: 1 } });
      const after = aLocation({ customFields: { tier: 'gold', fresh: true } });
      expect(modifiedFields(before, after)).toEqual({ customFields: { fresh: true, old: null } });
    });

    it('given a changed array, when the result is mutated, then the location is untouched', () => {
      const after = aLocation({ customFields: { tags: ['b'] } });
      const changes = modifiedFields(aLocation({ customFields: { tags: ['a'] } }), after);
      (changes.customFields?.['tags'] as string[]).push('c');
      expect(after.customFields).toEqual({ tags: ['b'] });
    });
  });

  it('given several changes, when compared, then the result is a valid modifiedFields payload', () => {
    const before = aLocation({ status: 'CONSTRUCTION', notes: 'old', customFields: { tags: ['a'] } });
    const after = aLocation({
      status: 'ACTIVE',
      locationGroupId: '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50',
      coordinates: { latitude: 40, longitude: -104.9903 },
      customFields: { tags: ['a', 'b'] },
    });
    const changes = modifiedFields(before, after);
    expect(changes).toEqual({
      locationGroupId: '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50',
      coordinates: { latitude: 40 },
      fiberAccessDetails: { serviceability: { status: 'ACTIVE' } },
      customFields: { tags: ['a', 'b'] },
      notes: null,
    });
    expect(validate(locationModifiedFieldsSchema, changes)).toEqual({ ok: true, value: changes });
  });
});
