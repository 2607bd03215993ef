import { aLocationInput, anAddress } from '../testing';
import { groupReferenceIssues, referencedGroupIds } from './group-references';

const a = '5a2d9c7e-1f3b-4c6a-8e9d-0b1c2d3e4f50';
const b = '7c8d9e0f-1a2b-4c3d-8e4f-5a6b7c8d9e0f';

describe('referencedGroupIds', () => {
  it('given bodies, patches and states, when collected, then each UUID appears once in lower case', () => {
    expect(
      referencedGroupIds(
        { locationGroupId: a.toUpperCase(), address: { addressGroupId: b } },
        { locationGroupId: a },
        { locationGroupId: null, address: null },
        undefined,
        'text',
      ),
    ).toEqual({ locationGroupIds: [a], addressGroupIds: [b] });
  });

  it('given values that are not UUIDs, when collected, then they are skipped', () => {
    expect(referencedGroupIds({ locationGroupId: 'x', address: { addressGroupId: 7 } })).toEqual({
      locationGroupIds: [],
      addressGroupIds: [],
    });
  });
});

describe('groupReferenceIssues', () => {
  it('given existing groups in lower case, when an upper-case reference is checked, then it is found', () => {
    const input = aLocationInput({ locationGroupId: a.toUpperCase(), address: anAddress({ addressGroupId: b }) });
    expect(groupReferenceIssues(input, { locationGroups: new Set([a]), addressGroups: new Set([b]) })).toEqual([]);
  });

  it('given a location without an address, when checked, then only its location group is looked up', () => {
    const input = aLocationInput({ address: undefined, locationGroupId: a });
    expect(groupReferenceIssues(input, { locationGroups: new Set([a]), addressGroups: new Set() })).toEqual([]);
  });

  it('given an address group id used as a location group, when checked, then the kinds do not mix', () => {
    const input = aLocationInput({ locationGroupId: b });
    expect(groupReferenceIssues(input, { locationGroups: new Set(), addressGroups: new Set([b]) })).toHaveLength(1);
  });
});
