import { locationInputSchema, SERVICEABILITY_STATUSES, validate } from '@lx/contracts';
import { demoGroupPlan, demoLocations } from './demo-data';

describe('the demo data set', () => {
  const plan = demoGroupPlan();
  const groupIds = new Map(
    [...plan.locationGroups, ...plan.addressGroups].map((group, index) => [
      group.key,
      `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    ]),
  );
  const locations = demoLocations(groupIds);

  it('is a few thousand locations with distinct ids, each a valid write body of the operator API', () => {
    expect(locations.length).toBeGreaterThan(2_000);
    expect(new Set(locations.map((location) => location.id)).size).toBe(locations.length);
    const invalid = locations
      .map(({ id, ...input }) => ({ id, result: validate(locationInputSchema, input) }))
      .filter(({ result }) => !result.ok);
    expect(invalid).toEqual([]);
    for (const { id } of locations)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('covers every serviceability status, several localities, every location shape, grouped and standalone', () => {
    const statuses = new Set(locations.map((location) => location.fiberAccessDetails?.serviceability?.status));
    expect([...statuses].sort()).toEqual([...SERVICEABILITY_STATUSES].sort());
    expect(new Set(locations.map((location) => location.geography.locality)).size).toBe(5);
    expect(locations.some((location) => location.address && !location.coordinates)).toBe(true);
    expect(locations.some((location) => !location.address && location.coordinates)).toBe(true);
    expect(locations.some((location) => location.address && location.coordinates)).toBe(true);
    expect(locations.some((location) => location.locationGroupId === undefined)).toBe(true);
    expect(new Set(locations.map((location) => location.locationGroupId).filter(Boolean)).size).toBe(
      plan.locationGroups.length,
    );
  });

  it('puts every unit of an apartment building in its address group, with a distinct subunit', () => {
    const units = locations.filter((location) => location.address?.addressGroupId !== undefined);
    expect(new Set(units.map((unit) => unit.address!.addressGroupId)).size).toBe(plan.addressGroups.length);
    for (const unit of units) expect(unit.address).toMatchObject({ subunitType: 'APT' });
    const perBuilding = new Map<string, Set<string>>();
    for (const unit of units) {
      const seen = perBuilding.get(unit.address!.addressGroupId!) ?? new Set();
      expect(seen.has(unit.address!.subunitIdentifier!)).toBe(false);
      perBuilding.set(unit.address!.addressGroupId!, seen.add(unit.address!.subunitIdentifier!));
    }
  });

  it('is the same set at every first start', () => {
    expect(demoLocations(groupIds)).toEqual(locations);
  });
});
