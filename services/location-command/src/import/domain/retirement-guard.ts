/** What a full-replace import is about to retire, against what was in service and what the request confirmed. */
export interface RetirementPlan {
  /** Locations in service the file did not name: what the import would retire now. */
  wouldRetire: number;
  /**
   * Locations in service when the import began: the network the file is meant to describe (a wrong file of new ids
   * must not dilute the share it retires).
   */
  inService: number;
  /** The largest share of `inService` retired without a confirmation (IMPORT_MAX_RETIRE_SHARE). */
  maxShare: number;
  /** The number the request confirmed (`confirmRetirements`), when it gave one. */
  confirmed?: number;
}

export type RetirementDecision = { retire: true } | { retire: false; reason: 'unconfirmed' | 'mismatch' };

/**
 * Whether a full-replace import may retire what its file left out. A truncated, partial or wrong file would otherwise
 * retire most of the network: above `maxShare` of the locations in service when it began, the request must confirm
 * the exact number (which the refusal tells it). A confirmation is always checked: one that no longer matches (the
 * data moved since the count was read) refuses, whatever the share.
 */
export function decideRetirement(plan: RetirementPlan): RetirementDecision {
  if (plan.confirmed !== undefined) {
    return plan.confirmed === plan.wouldRetire ? { retire: true } : { retire: false, reason: 'mismatch' };
  }
  if (plan.wouldRetire === 0) return { retire: true };
  // As a quotient, not a product: 57 of 100 is within a share of 0.57 (0.57 * 100 is 56.99999999999999).
  if (plan.inService > 0 && plan.wouldRetire / plan.inService <= plan.maxShare) return { retire: true };
  return { retire: false, reason: 'unconfirmed' };
}
