import { isRecord } from '@lx/contracts';

/**
 * Applies a JSON Merge Patch (RFC 7396) to a JSON value: a patch object merges key by key, `null` removes a key, any
 * other value (arrays included) replaces the target whole. Neither argument is mutated.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch;
  const result: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}
