import { randomUUID } from 'node:crypto';

/** Port: new UUIDs for locations, groups and events the server names. */
export abstract class IdGenerator {
  abstract next(): string;
}

export class RandomUuidGenerator extends IdGenerator {
  next(): string {
    return randomUUID();
  }
}
