import { randomBytes } from 'node:crypto';

/** An OAuth client secret: 256 random bits, base64url (safe in form bodies and Basic credentials unescaped). */
export function generateClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** A webhook signing secret in the Standard Webhooks form: `whsec_` and 32 random bytes in base64. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
