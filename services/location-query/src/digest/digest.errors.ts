import { DIGEST } from '@lx/contracts';
import { DomainError } from '@lx/domain';

/** GET …/digest/entries on a node too large to list (400 DIGEST_NODE_TOO_LARGE): descend with a longer prefix. */
export class DigestNodeTooLargeError extends DomainError {
  readonly code = 'DIGEST_NODE_TOO_LARGE';

  constructor(prefix: string, count: number) {
    super(
      `the node "${prefix}" holds ${count} resources, more than the ${DIGEST.maxEntries} GET …/digest/entries lists; ` +
        `ask GET …/digest?prefix=${prefix} for its children and list the entries of a longer prefix`,
      { count, limit: DIGEST.maxEntries },
    );
  }
}
