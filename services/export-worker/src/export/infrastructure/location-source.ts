import type { Readable } from 'node:stream';
import type { ExportFormat } from '@lx/contracts';
import type { ExportSelection } from '@lx/domain';

/**
 * A consistent snapshot of the selected locations, ordered by id: NDJSON, one Location per line as GET /locations/{id}
 * serves it (json), or one CRLF-terminated CSV record per location as the CSV export writes it (csv). A json snapshot
 * goes on with the groups of the same snapshot (`groupCounts` lines of location groups, then of address groups, one
 * LocationGroupListItem / AddressGroupListItem per line, each ordered by id). With versions every json line ends with
 * its row's `version`.
 */
export interface LocationSnapshot {
  totalCount: number;
  /** json: how many location group lines, then address group lines, follow the locations. */
  groupCounts?: SnapshotGroupCounts;
  stream: Readable;
}

/** How many groups of each kind a json snapshot holds after its locations. */
export interface SnapshotGroupCounts {
  locationGroups: number;
  addressGroups: number;
}

/**
 * Port to the locations an export is made of. Production adapter: the internal endpoints of location-command (the
 * watermark fence), location-query (the snapshot stream, groups) and statistics-projection (counts), over HTTP with
 * the service's own token.
 */
export abstract class LocationSource {
  /**
   * A watermark W: every location change with updatedAt ≤ W has been published when this resolves (location-command
   * fences its writers and waits for its outbox). A snapshot opened afterwards with `catchUp` contains all of them.
   */
  abstract watermark(): Promise<Date>;
  /**
   * Opens the snapshot once the read model has consumed everything published before the call; a json one with the
   * groups (all live ones; with modifiedSince those changed after it, tombstones included), and with `versions` each
   * line ending with its row's version.
   */
  abstract snapshot(selection: ExportSelection, format: ExportFormat, versions?: boolean): Promise<LocationSnapshot>;
  /** How many locations the selection holds, from the counters the statistics projection maintains. */
  abstract count(selection: ExportSelection): Promise<number>;
  abstract locationGroupExists(id: string): Promise<boolean>;
}
