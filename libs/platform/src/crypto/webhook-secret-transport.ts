import { SecretBox } from './secret-box';

/** Which client event a sealed webhook secret belongs to: the client it is the secret of and that client's version. */
export interface WebhookSecretBinding {
  clientId: string;
  /** The client's aggregate version, as in the event's `lx-aggregate-version` header (a positive integer). */
  version: number;
}

const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Additional authenticated data of a webhook secret sealed into a CLIENT_* event: the value opens only as the secret
 * of this client at this version, so it cannot be replayed into another client's event or another version.
 */
export function webhookSecretTransportContext({ clientId, version }: WebhookSecretBinding): string {
  if (!Number.isSafeInteger(version) || version < 1) throw new Error('version must be a positive integer');
  return `client-event:webhook-secret:${clientId}:${version}`;
}

/**
 * The transport format of an RSP's webhook signing secret in CLIENT_* events (`webhookSecretSealed`): AES-256-GCM
 * under WEBHOOK_SECRET_TRANSPORT_KEY, which only auth (sealing) and the webhook dispatcher (opening) hold; the
 * SecretBox layout (version | IV | tag | ciphertext) in standard base64, bound to client id and version (see
 * webhookSecretTransportContext). A reader of client.events.v1 without that key learns neither the secret nor
 * anything but its length.
 */
export class WebhookSecretTransport {
  private readonly box: SecretBox;

  /** `key`: the 32 key bytes (WEBHOOK_SECRET_TRANSPORT_KEY decoded). */
  constructor(key: Buffer) {
    this.box = new SecretBox(key);
  }

  /** Seals with a fresh IV: sealing one secret twice gives two different values. */
  seal(secret: string, binding: WebhookSecretBinding): string {
    return this.box.seal(secret, webhookSecretTransportContext(binding)).toString('base64');
  }

  /** The secret; throws when the value is not canonical base64, was sealed under another key or binding, or altered. */
  open(sealed: string, binding: WebhookSecretBinding): string {
    // Node's base64 decoder skips characters outside the alphabet; only a canonical string is taken as the value.
    if (sealed === '' || !CANONICAL_BASE64.test(sealed)) throw new Error('sealed webhook secret is not base64');
    return this.box.open(Buffer.from(sealed, 'base64'), webhookSecretTransportContext(binding)).toString('utf8');
  }
}
