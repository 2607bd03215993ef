import { createHmac } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** What a Standard Webhooks signature covers: the message id, the send time and the exact body bytes. */
export interface SignedMessage {
  /** `webhook-id`: the same on every attempt of one delivery, so the receiver can dedupe. */
  id: string;
  /** `webhook-timestamp`: seconds since the epoch at this attempt (receivers reject old ones). */
  timestampSeconds: number;
  /** The exact body bytes (a string is signed as its UTF-8 bytes). */
  body: string | Buffer;
}

/** The key bytes of a `whsec_<base64>` secret; throws for another form. */
export function webhookSecretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('a webhook secret starts with whsec_');
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  if (key.length < 24) throw new Error('a webhook secret holds at least 24 key bytes');
  return key;
}

/**
 * The `webhook-signature` header of Standard Webhooks: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` for each
 * secret, separated by spaces (during a rotation's grace period the new and the previous secret both sign, so a
 * receiver holding either verifies).
 */
export function signWebhook(message: SignedMessage, secrets: readonly string[]): string {
  if (secrets.length === 0) throw new Error('at least one secret signs a webhook');
  const prefix = `${message.id}.${message.timestampSeconds}.`;
  return secrets
    .map(
      (secret) =>
        `v1,${createHmac('sha256', webhookSecretKey(secret)).update(prefix).update(message.body).digest('base64')}`,
    )
    .join(' ');
}
