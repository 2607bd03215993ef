import { Injectable } from '@nestjs/common';
import {
  ConflictError,
  decideGroup,
  evolveGroup,
  type Group,
  type GroupCommand,
  type GroupKind,
  type GroupState,
} from '@lx/domain';
import { EventStore } from '../../event-store/event-store';
import type { EventStoreTransaction } from '../../event-store/event-store.transaction';
import type { StoredStream } from '../../event-store/event-store.types';
import { assertIfMatch, Clock } from '@lx/platform';

/** A group after a write, with its version (the ETag) and what the write did. */
export interface GroupWriteResult {
  group: Group;
  version: number;
  created: boolean;
  changed: boolean;
  deleted: boolean;
}

export interface GroupWriteOptions {
  ifMatch?: string;
  correlationId?: string;
}

/**
 * The steps every group write shares: lock the group, check If-Match, decide with `@lx/domain`, append. Locking the
 * group row also makes a delete wait for location writes that hold it (FOR SHARE) while referencing it, so the
 * reference count a delete sees includes them.
 */
@Injectable()
export class GroupWriter {
  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
  ) {}

  write(
    kind: GroupKind,
    groupId: string,
    options: GroupWriteOptions,
    toCommand: (transaction: EventStoreTransaction) => Promise<GroupCommand> | GroupCommand,
  ): Promise<GroupWriteResult> {
    return this.store.transaction(async (transaction) => {
      const stream = (await transaction.load([groupId])).get(groupId);
      const state = groupStateOf(stream, kind, groupId);
      assertIfMatch(options.ifMatch, state?.deleted === false ? (stream?.version ?? null) : null);
      const decided = decideGroup(await toCommand(transaction), state);
      if (!decided.ok) throw decided.error;

      const events = decided.value;
      const next = events.reduce(evolveGroup, state);
      if (next === undefined) throw new Error(`${kind} ${groupId} has no state after a successful write`);
      const fromVersion = stream?.version ?? 0;
      const now = this.clock.now().toISOString();
      await transaction.append(
        [{ streamId: groupId, streamType: kind, fromVersion, events, index: { deleted: next.deleted } }],
        {
          timestamp: now,
          correlationId: options.correlationId,
        },
      );
      return {
        group: next.group,
        version: fromVersion + events.length,
        created: events.some((event) => event.type.endsWith('_CREATED')),
        changed: events.length > 0,
        deleted: next.deleted,
      };
    });
  }
}

/** The group state of a stored stream; an id of another kind of aggregate is a conflict. */
export function groupStateOf(stream: StoredStream | undefined, kind: GroupKind, id: string): GroupState {
  if (stream === undefined) return undefined;
  if (stream.streamType !== kind) {
    throw new ConflictError(`${id} is the id of a ${stream.streamType}, not of a ${kind}`, {
      resourceId: id,
      resourceType: stream.streamType,
    });
  }
  return { group: stream.data as Group, deleted: stream.deleted };
}
