/** What a full-replace import is about to retire, against what is in service and what the request confirmed. */
export interface RetirementPlan {
  /** Locations in service the file did not name: what the import would retire now. */
  wouldRetire: number;
  /** Locations in service now, the file's rows applied (those to retire included). */
  inService: number;
  /** The largest share of `inService` retired without a confirmation (IMPORT_MAX_RETIRE_SHARE). */
  maxShare: number;
  /** The number the request confirmed (`confirmRetirements`), when it gave one. */
  confirmed?: number;
}

export type RetirementDecision = { retire: true } | { retire: false; reason: 'unconfirmed' | 'mismatch' };

/**
 * Whether a full-replace import may retire what its file left out. A truncated or partial file would otherwise retire
 * most of the network: above `maxShare` of the locations in service, the request must confirm the exact number (which
 * the refusal tells it). A confirmation is always checked: one that no longer matches (the data moved since the
 * count was read) refuses, whatever the share.
 */
export function decideRetirement(plan: RetirementPlan): RetirementDecision {
  if (plan.confirmed !== undefined) {
    return plan.confirmed === plan.wouldRetire ? { retire: true } : { retire: false, reason: 'mismatch' };
  }
  if (plan.wouldRetire === 0 || plan.wouldRetire <= plan.maxShare * plan.inService) return { retire: true };
  return { retire: false, reason: 'unconfirmed' };
}
