/** The tables of the read model, by role; a rebuild points the projection at fresh copies of them. */
export interface ReadModelTables {
  locations: string;
  locationGroups: string;
  addressGroups: string;
  /** The stored digest nodes of all three (docs/digest.md), written in the same transactions as their rows. */
  digestNodes: string;
}

/** The tables readers use. */
export const LIVE_TABLES: ReadModelTables = {
  locations: 'locations',
  locationGroups: 'location_groups',
  addressGroups: 'address_groups',
  digestNodes: 'digest_nodes',
};

/** Live table names in the order a rebuild locks them at the switch. */
export const REBUILT_TABLES = [
  LIVE_TABLES.locations,
  LIVE_TABLES.locationGroups,
  LIVE_TABLES.addressGroups,
  LIVE_TABLES.digestNodes,
];

export const READ_MODEL_TABLES = Symbol('READ_MODEL_TABLES');
