import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { ChangeEvent } from '../api/lx-api.client';
import { LxSyncError } from '../errors';
import type { MirrorStore } from '../store/mirror-store';
import { rowOfChange } from '../sync/mirror-rows';

/** What became of a delivery (also the label of `lx_sync_webhooks_total`). */
export type WebhookOutcome = 'applied' | 'stale' | 'duplicate' | 'ignored';

/** The receiver's paths: location and group changes, and export notifications (which lx-sync does not need). */
export const WEBHOOK_PATHS = { changes: '/locations/events', exports: '/locations/exports/events' } as const;

/**
 * One webhook delivery: its Standard Webhooks signature verified (else SIGNATURE_INVALID, nothing written), then, in
 * one transaction, its `webhook-id` recorded and its change applied when newer than the mirror's version. The caller
 * answers 2xx only after this resolves, i.e. after the commit: a delivery lost in a crash is retried by the operator.
 */
export class ReceiveWebhook {
  private readonly webhook: Webhook;

  constructor(
    private readonly store: MirrorStore,
    secret: string,
  ) {
    this.webhook = new Webhook(secret);
  }

  async execute(path: string, headers: Record<string, string>, body: string): Promise<WebhookOutcome> {
    let payload: unknown;
    try {
      payload = this.webhook.verify(body, headers);
    } catch (error) {
      if (error instanceof WebhookVerificationError) {
        throw new LxSyncError('SIGNATURE_INVALID', `webhook signature refused: ${error.message}`);
      }
      throw error;
    }
    const webhookId = headers['webhook-id']!;
    const event = path === WEBHOOK_PATHS.changes ? (payload as { event?: ChangeEvent }).event : undefined;
    const change = event === undefined ? undefined : rowOfChange(event);
    return this.store.transaction(async (transaction) => {
      if (!(await transaction.claimDelivery(webhookId))) return 'duplicate';
      if (change === undefined) return 'ignored';
      return (await transaction.apply(change.resource, change.row)) ? 'applied' : 'stale';
    });
  }
}
