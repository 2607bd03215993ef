import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { ExportAccepted } from '@lx/contracts';
import {
  assertIdempotencyKey,
  assertSameRequest,
  canonicalExportRequest,
  ExportSizeExceededError,
  fileOptionsOf,
  IDEMPOTENCY_WINDOW_MS,
  InvalidGroupReferenceError,
  parseExportRequest,
  RateLimitExceededError,
  selectionOf,
} from '@lx/domain';
import { Clock, IdGenerator, WakeUp } from '@lx/platform';
import { EXPORT_WORKER_CONFIG, type ExportWorkerConfig } from '../../../config/export-worker.config';
import { ExportMetrics } from '../../infrastructure/export-metrics';
import { ExportRequestRepository } from '../../infrastructure/export-request.repository';
import { LocationSource } from '../../infrastructure/location-source';

export interface RequestExport {
  clientId: string;
  body: unknown;
  idempotencyKey?: string;
}

/** Retry-After when the cap on unfinished exports is reached: about when a small export has finished. */
const UNFINISHED_RETRY_AFTER_SECONDS = 30;

const acceptedReply = (requestId: string): ExportAccepted => ({
  requestId,
  status: 'PENDING',
  message: 'Export request accepted; poll GET /locations/exports/{requestId} or wait for the webhook notification',
});

/**
 * POST /locations/exports. Validates the body, replays a request made with the same Idempotency-Key (a different body
 * under that key is a conflict), checks the group filter and the size limit against the read side's counters, then,
 * serialized per client across replicas, counts the request against the client's quota and its unfinished exports
 * and stores it: the stored row is the job.
 */
@Injectable()
export class RequestExportHandler {
  constructor(
    private readonly requests: ExportRequestRepository,
    private readonly source: LocationSource,
    private readonly wakeUp: WakeUp,
    private readonly metrics: ExportMetrics,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    @Inject(EXPORT_WORKER_CONFIG) private readonly config: ExportWorkerConfig,
  ) {}

  async execute(command: RequestExport): Promise<{ reply: ExportAccepted; replayed: boolean }> {
    const now = this.clock.now();
    if (command.idempotencyKey !== undefined) assertIdempotencyKey(command.idempotencyKey);
    const parsed = parseExportRequest(command.body, now);
    if (!parsed.ok) throw parsed.error;
    const selection = selectionOf(parsed.value);
    const options = fileOptionsOf(parsed.value);
    const requestHash = createHash('sha256')
      .update(canonicalExportRequest(parsed.value.format, selection, options))
      .digest('hex');
    const since = new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS);

    const earlier = await this.replay(command, requestHash, since);
    if (earlier !== undefined) return earlier;

    if (
      selection.locationGroupId !== undefined &&
      !(await this.source.locationGroupExists(selection.locationGroupId))
    ) {
      throw new InvalidGroupReferenceError([
        {
          field: 'filters.locationGroupId',
          rule: 'exists',
          message: `filters.locationGroupId ${selection.locationGroupId} names no location group`,
        },
      ]);
    }
    const matching = await this.source.count(selection);
    if (matching > this.config.limits.maxLocations) {
      this.metrics.requests.inc({ outcome: 'too_large' });
      throw new ExportSizeExceededError(matching, this.config.limits.maxLocations);
    }

    const id = this.ids.next();
    const outcome = await this.requests.transaction(async (manager) => {
      await this.requests.lockClient(manager, command.clientId);
      if (command.idempotencyKey !== undefined) {
        const again = await this.requests.findByIdempotencyKey(
          command.clientId,
          command.idempotencyKey,
          since,
          manager,
        );
        if (again !== undefined) return this.replayOf(again.request.id, again.requestHash, requestHash);
        await this.requests.releaseIdempotencyKey(manager, command.clientId, command.idempotencyKey, since);
      }
      await this.checkQuota(manager, command.clientId, now);
      await this.requests.insert(manager, {
        id,
        clientId: command.clientId,
        format: parsed.value.format,
        includeVersions: options.includeVersions === true,
        spreadsheetSafe: options.spreadsheetSafe === true,
        createdAt: now,
        requestHash,
        ...selection,
        ...(command.idempotencyKey === undefined ? {} : { idempotencyKey: command.idempotencyKey }),
      });
      return { reply: acceptedReply(id), replayed: false };
    });
    this.metrics.requests.inc({ outcome: outcome.replayed ? 'replayed' : 'accepted' });
    if (!outcome.replayed) this.wakeUp.notify();
    return outcome;
  }

  private async replay(command: RequestExport, requestHash: string, since: Date) {
    if (command.idempotencyKey === undefined) return undefined;
    const earlier = await this.requests.findByIdempotencyKey(command.clientId, command.idempotencyKey, since);
    if (earlier === undefined) return undefined;
    const outcome = this.replayOf(earlier.request.id, earlier.requestHash, requestHash);
    this.metrics.requests.inc({ outcome: 'replayed' });
    return outcome;
  }

  private replayOf(requestId: string, storedHash: string, requestHash: string) {
    assertSameRequest(storedHash, requestHash, { requestId });
    return { reply: acceptedReply(requestId), replayed: true };
  }

  private async checkQuota(
    manager: Parameters<ExportRequestRepository['countRequest']>[0],
    clientId: string,
    now: Date,
  ) {
    const windowMs = this.config.limits.rateWindowSeconds * 1000;
    const windowStart = new Date(Math.floor(now.getTime() / windowMs) * windowMs);
    if ((await this.requests.countUnfinished(manager, clientId)) >= this.config.limits.maxUnfinished) {
      this.metrics.requests.inc({ outcome: 'rate_limited' });
      throw new RateLimitExceededError(
        `at most ${this.config.limits.maxUnfinished} unfinished exports per client; wait until one has finished`,
        UNFINISHED_RETRY_AFTER_SECONDS,
      );
    }
    if ((await this.requests.countRequest(manager, clientId, windowStart)) > this.config.limits.rateLimit) {
      this.metrics.requests.inc({ outcome: 'rate_limited' });
      throw new RateLimitExceededError(
        `at most ${this.config.limits.rateLimit} export requests per ${this.config.limits.rateWindowSeconds} s`,
        (windowStart.getTime() + windowMs - now.getTime()) / 1000,
      );
    }
  }
}
