import { type EventOf, eventSchema, type EventType, validate } from '@lx/contracts';

/** What a producer gives of an event it is about to append to its outbox; the type is given beside it. */
export interface EventFields {
  id: string;
  timestamp: string;
  source: string;
  data: unknown;
}

/**
 * An event of the catalog as a producer built it, checked against its contract before it reaches the outbox. A
 * mismatch is a programming error, not bad input (the data was validated before it got here), so it throws; the
 * message names fields, never values, which may be secret.
 */
export function contractEvent<T extends EventType>(type: T, fields: EventFields): EventOf<T> {
  const checked = validate(eventSchema(type), { ...fields, type });
  if (!checked.ok) {
    throw new Error(`${type} event does not match its contract: ${checked.issues.map((i) => i.message).join('; ')}`);
  }
  return checked.value;
}
