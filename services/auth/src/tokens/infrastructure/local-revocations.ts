import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { Recent, RevocationSet, Revocations } from '@lx/platform';
import { ListRevocationsHandler } from '../queries/list-revocations/list-revocations.handler';

/** The list as served: its JSON body, its entity tag and the set verifiers apply. */
export interface PublishedRevocations {
  body: string;
  etag: string;
  set: RevocationSet;
}

/** How long one read of the list is reused, so the polls of every replica of every service cost few queries. */
const FRESH_MS = 1_000;

/**
 * The revocation list as the auth service itself holds it: read from its own tables (reused for a second), served to
 * every other service at GET /internal/revocations, and applied to the tokens of its own admin API.
 */
@Injectable()
export class LocalRevocations extends Revocations {
  private readonly recent = new Recent(FRESH_MS, () => this.load());

  constructor(private readonly listRevocations: ListRevocationsHandler) {
    super();
  }

  async current(): Promise<RevocationSet> {
    return (await this.published()).set;
  }

  published(): Promise<PublishedRevocations> {
    return this.recent.get();
  }

  private async load(): Promise<PublishedRevocations> {
    const list = await this.listRevocations.execute();
    const body = JSON.stringify(list);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    return { body, etag, set: new RevocationSet(list) };
  }
}
