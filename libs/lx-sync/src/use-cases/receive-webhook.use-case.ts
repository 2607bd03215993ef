import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { WEBHOOK_PATHS } from '@lx/contracts';
import { LxSyncError } from '../errors';
import type { MirrorStore } from '../store/mirror-store';
import { rowOfChange } from '../sync/mirror-rows';

/** What became of a delivery (also the label of `lx_sync_webhooks_total`). */
export type WebhookOutcome = 'applied' | 'stale' | 'duplicate' | 'ignored';

/**
 * One webhook delivery: its Standard Webhooks signature verified (else SIGNATURE_INVALID, nothing written), its change
 * checked (else INVALID_PAYLOAD, nothing written), then, in
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
      // Signed, but not JSON: the sender's defect, refused for good (400) rather than retried.
      throw new LxSyncError('INVALID_PAYLOAD', `a signed webhook that is not JSON: ${(error as Error).message}`);
    }
    const webhookId = headers['webhook-id']!;
    // Export notifications are acknowledged and kept out of the mirror (lx-sync waits for its exports itself).
    const change =
      path === WEBHOOK_PATHS.locationEvents ? rowOfChange((payload as { event?: unknown } | null)?.event) : undefined;
    return this.store.transaction(async (transaction) => {
      if (!(await transaction.claimDelivery(webhookId))) return 'duplicate';
      if (change === undefined) return 'ignored';
      return (await transaction.apply(change.resource, change.row)) ? 'applied' : 'stale';
    });
  }
}
