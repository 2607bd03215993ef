import type { LxApiClient } from '../api/lx-api.client';
import type { MirrorStore } from '../store/mirror-store';
import type { DriftedId } from './verify-mirror.use-case';

export interface RepairResult {
  /** Rows written with the operator's current state. */
  readonly written: number;
  /** Rows removed: the operator has no such location, or no longer such a group. */
  readonly removed: number;
}

/**
 * `lx-sync repair`: fetches exactly the drifted ids from the API (`GET /locations/{id}`, `/location-groups/{id}`,
 * `/address-groups/{id}`, the version from the ETag) and writes what the operator holds now, or removes the row when
 * the operator has none.
 */
export class RepairMirror {
  constructor(
    private readonly api: LxApiClient,
    private readonly store: MirrorStore,
  ) {}

  async execute(drifted: readonly DriftedId[]): Promise<RepairResult> {
    let written = 0;
    let removed = 0;
    for (const { resource, id } of drifted) {
      const current = await this.api.getResource(resource, id);
      await this.store.transaction(async (transaction) => {
        if (current === undefined) {
          await transaction.remove(resource, id);
          removed++;
        } else {
          await transaction.put(resource, {
            id,
            version: current.version,
            deleted: false,
            body: JSON.stringify(current.body),
          });
          written++;
        }
      });
    }
    return { written, removed };
  }
}
