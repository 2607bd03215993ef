import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const REPO_ROOT = join(__dirname, '..', '..', '..');

/** `node -r` this file to run TypeScript sources directly, compiled the way jest compiles them. */
export const REGISTER_SWC = join(REPO_ROOT, 'libs', 'testing', 'register-swc.js');

/**
 * Reads the endpoints that deploy/local wrote to .infra/env. A variable already set in the
 * environment wins, so tests can point at infrastructure started some other way.
 */
export function loadInfraEnv(file = join(process.env.LX_STATE_DIR ?? join(REPO_ROOT, '.infra'), 'env')): void {
  if (!existsSync(file)) return;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line.trim());
    if (!match) continue;
    const [, key, raw] = match as unknown as [string, string, string];
    const value = raw.startsWith("'") && raw.endsWith("'") ? raw.slice(1, -1).replace(/'\\''/g, "'") : raw;
    process.env[key] ??= value;
  }
}

/** Reads a variable the integration environment must provide, with a hint on how to provide it. */
export function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value)
    throw new Error(`${name} is not set: run "npm run infra:up" (or export ${name}) before integration tests`);
  return value;
}

/** An optional setting of the test environment, or its default. */
export function envOr(name: string, fallback: string): string {
  return process.env[name] || fallback;
}

/** A short random suffix so each test file gets its own topics, schemas and buckets. */
export function uniqueSuffix(): string {
  return `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}
