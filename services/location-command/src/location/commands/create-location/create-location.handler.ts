import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import {
  assertIdempotencyKey,
  assertSameRequest,
  canonicalJson,
  ConflictError,
  DomainError,
  IDEMPOTENCY_WINDOW_MS,
  referencedGroupIds,
} from '@lx/domain';
import { Clock, IdGenerator } from '@lx/platform';
import { DeciderCommandHandler } from '../../../event-store/decider-command.handler';
import { LOCATION_DECIDER, type LocationWriteResult, locationWriteResultOf } from '../../domain/location.decider';
import { type IdempotencyKeyOf, IdempotencyKeyRepository } from '../../infrastructure/idempotency-key.repository';

export interface CreateLocationCommand {
  body: unknown;
  /** The caller, whose Idempotency-Keys are its own. */
  clientId: string;
  /** Makes the request safe to repeat: the same key and body within 24 hours answer the first reply again. */
  idempotencyKey?: string;
  correlationId?: string;
}

/** The result of a creation; `replayed` when an earlier request under the same Idempotency-Key created it. */
export type CreateLocationResult = LocationWriteResult & { replayed: boolean };

/**
 * POST /operator/locations: a new location under a server-generated UUID.
 *
 * With an Idempotency-Key the key is claimed for the new id first (IdempotencyKeyRepository), then the location is created
 * under that id. A request repeated with the key and the same body (canonical JSON, key order aside) answers the
 * location as the first reply did (its creation, version 1) and creates nothing; another body is 409 CONFLICT. A
 * repeat that finds the key claimed but nothing created (the first request still running, or cut off before it
 * wrote) creates it under the claimed id; of two that race, the loser's CreateLocation meets the winner's stream and
 * answers the replay. The request that claimed the key gives it back when refused (a broken rule) and nothing was
 * created under it, so the corrected request may use the key.
 */
@Injectable()
export class CreateLocationHandler {
  constructor(
    private readonly handler: DeciderCommandHandler,
    private readonly ids: IdGenerator,
    private readonly keys: IdempotencyKeyRepository,
    private readonly clock: Clock,
  ) {}

  async execute(command: CreateLocationCommand): Promise<CreateLocationResult> {
    if (command.idempotencyKey !== undefined) assertIdempotencyKey(command.idempotencyKey);
    // A body that is not a JSON object is refused by the rules (400) and can name no request to repeat.
    if (command.idempotencyKey === undefined || !isJsonObject(command.body)) {
      return { ...(await this.create(this.ids.next(), command)), replayed: false };
    }

    const key: IdempotencyKeyOf = { clientId: command.clientId, key: command.idempotencyKey };
    const requestHash = createHash('sha256').update(canonicalJson(command.body)).digest('hex');
    const now = this.clock.now();
    const claim = await this.keys.claim(
      key,
      requestHash,
      this.ids.next(),
      now,
      new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS),
    );
    if (!claim.claimed) {
      assertSameRequest(claim.requestHash, requestHash, { locationId: claim.streamId });
      const replayed = await this.replay(claim.streamId);
      if (replayed !== undefined) return replayed;
    }
    try {
      return { ...(await this.create(claim.streamId, command)), replayed: false };
    } catch (error) {
      if (error instanceof ConflictError) {
        const replayed = await this.replay(claim.streamId);
        if (replayed !== undefined) return replayed;
      }
      if (claim.claimed && error instanceof DomainError) await this.keys.release(key, claim.streamId);
      throw error;
    }
  }

  private async replay(locationId: string): Promise<CreateLocationResult | undefined> {
    const location = await this.keys.createdLocation(locationId);
    if (location === undefined) return undefined;
    return { location, version: 1, created: true, changed: false, replayed: true };
  }

  private async create(locationId: string, command: CreateLocationCommand): Promise<LocationWriteResult> {
    const outcome = await this.handler.execute(LOCATION_DECIDER, {
      streamId: locationId,
      correlationId: command.correlationId,
      namedGroups: referencedGroupIds(command.body),
      command: ({ now, existingGroups }) => ({
        type: 'CreateLocation' as const,
        locationId,
        body: command.body,
        now,
        existingGroups,
      }),
    });
    return locationWriteResultOf(outcome, locationId);
  }
}

/** A parsed JSON object (what Fastify's JSON parser makes of a body), not an array, a stream or nothing. */
function isJsonObject(body: unknown): body is Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const prototype: unknown = Object.getPrototypeOf(body);
  return prototype === Object.prototype || prototype === null;
}
