import { setTimeout as sleep } from 'node:timers/promises';
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
 *
 * A mirror can be ahead of the API's read model for a moment (a webhook comes from another consumer, which may be
 * quicker): when the mirror holds a higher version than the API answers, the API is asked again after
 * `confirmDelayMs`, and the row is only written back if the API still answers the lower version (the mirror's row is
 * then wrong, e.g. edited by hand); and a row that changed while the API was asked (a webhook applied meanwhile) is
 * left as it is, for the next verify. So repair does not undo a change the mirror received first, unless the read
 * model trails the webhooks by more than the delay.
 */
export class RepairMirror {
  constructor(
    private readonly api: LxApiClient,
    private readonly store: MirrorStore,
  ) {}

  async execute(drifted: readonly DriftedId[], options: { confirmDelayMs: number }): Promise<RepairResult> {
    let written = 0;
    let removed = 0;
    for (const { resource, id } of drifted) {
      let current = await this.api.getResource(resource, id);
      const held = await this.store.row(resource, id);
      if (held !== undefined && !held.deleted && held.version > (current?.version ?? 0) && options.confirmDelayMs > 0) {
        await sleep(options.confirmDelayMs);
        current = await this.api.getResource(resource, id);
      }
      // Written only over what was compared (compare-and-set on the held version): a change applied meanwhile wins.
      const done = await this.store.transaction((transaction) => {
        if (current !== undefined) {
          return transaction.replace(
            resource,
            { id, version: current.version, deleted: false, body: JSON.stringify(current.body) },
            held?.version,
          );
        }
        if (held === undefined) return Promise.resolve(false);
        // A group the operator deleted stays a tombstone (an older event must not bring it back); a location the
        // operator does not have is removed.
        return resource === 'locations'
          ? transaction.removeIf(resource, id, held.version)
          : transaction.replace(resource, { ...held, deleted: true }, held.version);
      });
      if (done && current !== undefined) written++;
      else if (done) removed++;
    }
    return { written, removed };
  }
}
