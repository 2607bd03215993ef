import fs from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { LxSyncError } from '../errors';

/** Everything lx-sync is told, from a JSON file, the environment and the command line (in rising precedence). */
export interface LxSyncConfig {
  /** Base URL of the operator's API (the public ingress), without a trailing slash. */
  readonly apiUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** A PostgreSQL URL (`postgres://…`) or the path of a SQLite file. */
  readonly database: string;
  /** The `whsec_…` secret of the client's webhooks; `run` refuses to start its receiver without it. */
  readonly webhookSecret?: string;
  /** Where `run` listens for webhooks, /health and /metrics. */
  readonly listenHost: string;
  readonly listenPort: number;
  /** How often `run` reads the change feed (seconds). */
  readonly feedIntervalSeconds: number;
  /** How often `run` compares the statistics and the digest with the mirror, repairing any drift (seconds). */
  readonly checkIntervalSeconds: number;
  /** How long `verify` waits before it confirms a difference (changes in flight settle meanwhile), milliseconds. */
  readonly confirmDelayMs: number;
  /** Longest wait for one API reply (milliseconds). */
  readonly requestTimeoutMs: number;
}

/** Each setting: its key in the file, its environment variable, and how to read it. */
const SETTINGS = {
  apiUrl: { env: 'LX_SYNC_API_URL', kind: 'url' },
  clientId: { env: 'LX_SYNC_CLIENT_ID', kind: 'string' },
  clientSecret: { env: 'LX_SYNC_CLIENT_SECRET', kind: 'string' },
  database: { env: 'LX_SYNC_DATABASE', kind: 'string' },
  webhookSecret: { env: 'LX_SYNC_WEBHOOK_SECRET', kind: 'string', optional: true },
  listenHost: { env: 'LX_SYNC_LISTEN_HOST', kind: 'string', default: '0.0.0.0' },
  listenPort: { env: 'LX_SYNC_LISTEN_PORT', kind: 'int', default: 8787, min: 0, max: 65535 },
  feedIntervalSeconds: { env: 'LX_SYNC_FEED_INTERVAL_SECONDS', kind: 'int', default: 60, min: 1, max: 86400 },
  checkIntervalSeconds: { env: 'LX_SYNC_CHECK_INTERVAL_SECONDS', kind: 'int', default: 86400, min: 10, max: 604800 },
  confirmDelayMs: { env: 'LX_SYNC_CONFIRM_DELAY_MS', kind: 'int', default: 2000, min: 0, max: 600000 },
  requestTimeoutMs: { env: 'LX_SYNC_REQUEST_TIMEOUT_MS', kind: 'int', default: 60000, min: 100, max: 3600000 },
} as const satisfies Record<
  keyof LxSyncConfig,
  {
    env: string;
    kind: 'url' | 'string' | 'int';
    optional?: boolean;
    default?: string | number;
    min?: number;
    max?: number;
  }
>;

export type ConfigKey = keyof typeof SETTINGS;

/** The environment variables lx-sync reads, for the docs and `--help`. */
export const CONFIG_VARIABLES = Object.fromEntries(
  Object.entries(SETTINGS).map(([key, setting]) => [key, setting.env]),
) as Record<ConfigKey, string>;

/**
 * Reads the configuration: the file (JSON, keys as in LxSyncConfig) if one is named, then the environment, then the
 * overrides (command-line flags). Every problem is reported at once, each naming its setting and variable.
 */
export function loadLxSyncConfig(
  options: { file?: string; env?: NodeJS.ProcessEnv; overrides?: Partial<Record<ConfigKey, string | number>> } = {},
): LxSyncConfig {
  const env = options.env ?? process.env;
  const fromFile = options.file === undefined ? {} : readConfigFile(options.file);
  const problems: string[] = [];
  const config: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(SETTINGS) as [ConfigKey, (typeof SETTINGS)[ConfigKey]][]) {
    // An empty value counts as unset at every level (an exported but empty variable does not hide the file's value).
    const raw = [options.overrides?.[key], env[setting.env], fromFile[key]].find(
      (value) => value !== undefined && value !== '',
    );
    if (raw !== undefined && typeof raw !== 'string' && typeof raw !== 'number') {
      problems.push(`${key} (${setting.env}) must be a string or a number`);
      continue;
    }
    const label = `${key} (${setting.env})`;
    if (raw === undefined) {
      if ('default' in setting) config[key] = setting.default;
      else if (!('optional' in setting)) problems.push(`${label} is required`);
      continue;
    }
    if (setting.kind === 'int') {
      const value = typeof raw === 'number' ? raw : /^\d+$/.test(String(raw)) ? Number(raw) : NaN;
      if (!Number.isInteger(value) || value < setting.min || value > setting.max) {
        problems.push(`${label} must be an integer from ${setting.min} to ${setting.max}, not ${JSON.stringify(raw)}`);
      } else config[key] = value;
      continue;
    }
    const text = String(raw);
    if (setting.kind === 'url') {
      let url: URL | undefined;
      try {
        url = new URL(text);
      } catch {
        url = undefined;
      }
      if (url === undefined || !['http:', 'https:'].includes(url.protocol)) {
        problems.push(`${label} must be an http(s) URL, not ${JSON.stringify(text)}`);
      } else config[key] = text.replace(/\/+$/, '');
      continue;
    }
    config[key] = text;
  }
  if (typeof config.webhookSecret === 'string' && !isWebhookSecret(config.webhookSecret)) {
    problems.push('webhookSecret (LX_SYNC_WEBHOOK_SECRET) must be the whsec_… secret auth revealed for the client');
  }
  if (problems.length > 0) {
    throw new LxSyncError('CONFIG_INVALID', `invalid configuration: ${problems.join('; ')}`, { problems });
  }
  return config as unknown as LxSyncConfig;
}

function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new LxSyncError('CONFIG_INVALID', `cannot read the configuration file ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new LxSyncError('CONFIG_INVALID', `the configuration file ${file} is not JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new LxSyncError('CONFIG_INVALID', `the configuration file ${file} must hold a JSON object`);
  }
  const unknown = Object.keys(parsed).filter((key) => !(key in SETTINGS));
  if (unknown.length > 0) {
    throw new LxSyncError(
      'CONFIG_INVALID',
      `the configuration file ${file} has unknown keys: ${unknown.join(', ')} (known: ${Object.keys(SETTINGS).join(', ')})`,
    );
  }
  return parsed as Record<string, unknown>;
}

/** A Standard Webhooks secret: `whsec_` and base64 that the library accepts. */
function isWebhookSecret(secret: string): boolean {
  if (!secret.startsWith('whsec_')) return false;
  try {
    new Webhook(secret);
    return true;
  } catch {
    return false;
  }
}
