import type { LxApiClient } from '../api/lx-api.client';
import type { MirrorStore } from '../store/mirror-store';
import type { RepairMirror, RepairResult } from './repair-mirror.use-case';
import type { DriftReport, VerifyMirror } from './verify-mirror.use-case';

export interface CheckResult {
  /** The operator's `totalCount` (GET /locations/statistics) and the mirror's count of locations. */
  readonly statistics: { server: number; mirror: number };
  readonly report: DriftReport;
  readonly repair?: RepairResult;
}

/**
 * The daily check of `lx-sync run`: the spec's count comparison (statistics against the mirror), then the digest
 * comparison, which finds what counts cannot (one location lost and another added); any drifted id is repaired.
 */
export class CheckMirror {
  constructor(
    private readonly api: LxApiClient,
    private readonly store: MirrorStore,
    private readonly verify: VerifyMirror,
    private readonly repair: RepairMirror,
  ) {}

  async execute(options: { confirmDelayMs: number }): Promise<CheckResult> {
    const statistics = {
      server: (await this.api.statistics()).totalCount,
      mirror: await this.store.count('locations'),
    };
    const report = await this.verify.execute(options);
    if (report.drifted.length === 0) return { statistics, report };
    return { statistics, report, repair: await this.repair.execute(report.drifted, options) };
  }
}
