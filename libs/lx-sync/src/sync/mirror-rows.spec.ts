import { LxSyncError } from '../errors';
import { rowOfChange, rowOfExportItem } from './mirror-rows';

const event = (type: string, version: number) => ({
  id: 'e',
  type,
  timestamp: '2026-11-27T00:00:00.000Z',
  data: { id: 'g', name: 'N' },
  version,
});

describe('mirror rows', () => {
  it('maps each change type to its resource, a deletion to a tombstone, and ignores other types', () => {
    expect(rowOfChange(event('LOCATION_UPDATED', 3))).toEqual({
      resource: 'locations',
      row: { id: 'g', version: 3, deleted: false, body: '{"id":"g","name":"N"}' },
    });
    expect(rowOfChange(event('LOCATION_GROUP_DELETED', 2))?.row.deleted).toBe(true);
    expect(rowOfChange(event('ADDRESS_GROUP_CREATED', 1))?.resource).toBe('addressGroups');
    expect(rowOfChange(event('SOMETHING_ELSE', 1))).toBeUndefined();
    expect(() => rowOfChange(event('LOCATION_CREATED', 0))).toThrow(LxSyncError);
  });

  it('takes the version out of an exported item, and reads a tombstone as deleted', () => {
    expect(rowOfExportItem('location', { id: 'l', a: 1, version: 4 })).toEqual({
      resource: 'locations',
      row: { id: 'l', version: 4, deleted: false, body: '{"id":"l","a":1}' },
    });
    expect(
      rowOfExportItem('locationGroup', { id: 'g', name: 'N', deletedAt: '2026-11-27T00:00:00.000Z', version: 2 }),
    ).toEqual({
      resource: 'locationGroups',
      row: { id: 'g', version: 2, deleted: true, body: '{"id":"g","name":"N"}' },
    });
    expect(() => rowOfExportItem('location', { id: 'l' })).toThrow(/without a version/);
  });
});
