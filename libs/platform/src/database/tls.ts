import type { DatabaseConfig } from '../config/config';

/**
 * node-postgres's `ssl` option for DATABASE_SSL_MODE, with libpq's meaning of each mode: `require` encrypts without
 * checking who answers (it only resists a passive listener), `verify-full` checks the certificate's chain (against the
 * given CA, else Node's bundled CAs) and that it names the host connected to (Node's default checkServerIdentity).
 */
export function tlsOptionsOf(
  ssl: NonNullable<DatabaseConfig['ssl']>,
): false | { rejectUnauthorized: boolean; ca?: string } {
  switch (ssl.mode) {
    case 'disable':
      return false;
    case 'require':
      return { rejectUnauthorized: false };
    case 'verify-full':
      return { rejectUnauthorized: true, ...(ssl.ca !== undefined && { ca: ssl.ca }) };
  }
}
