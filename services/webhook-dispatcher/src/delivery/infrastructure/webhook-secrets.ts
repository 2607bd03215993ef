import { Injectable } from '@nestjs/common';
import { WebhookSecretTransport } from '@lx/platform';

/**
 * Opens the sealed webhook secrets the subscriptions keep (as CLIENT_* events carried them), remembering each opened
 * one by client and version: the secret exists in clear only in this process's memory, never at rest.
 */
@Injectable()
export class WebhookSecrets {
  private readonly opened = new Map<string, string>();

  constructor(private readonly transport: WebhookSecretTransport) {}

  open(sealed: string, clientId: string, version: number): string {
    const key = `${clientId}\u0000${version}\u0000${sealed}`;
    let secret = this.opened.get(key);
    if (secret === undefined) {
      secret = this.transport.open(sealed, { clientId, version });
      this.opened.set(key, secret);
    }
    return secret;
  }
}
