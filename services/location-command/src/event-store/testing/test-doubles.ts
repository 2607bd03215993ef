import type { EntityManager } from 'typeorm';
import { IdGenerator } from '@lx/platform';

/** Ids `event-1`, `event-2`, … so expectations can name them. */
export class SequentialIds extends IdGenerator {
  private n = 0;
  next(): string {
    this.n += 1;
    return `event-${this.n}`;
  }
}

/** A manager that answers each statement with the next of `answers` (then with no rows) and records what it was sent. */
export function scriptedManager(...answers: unknown[][]) {
  const queries: { sql: string; parameters: unknown[] }[] = [];
  const manager = {
    query: (sql: string, parameters: unknown[]) => {
      queries.push({ sql, parameters });
      return Promise.resolve(answers.shift() ?? []);
    },
  } as unknown as EntityManager;
  return { manager, queries };
}
