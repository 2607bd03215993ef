import { ConfigError } from '@lx/platform';

/**
 * The problems a service's configuration loader names for `env` (what it would print before exiting 1), or none when
 * the configuration loads. Any other error is rethrown.
 */
export function configProblems(load: (env: NodeJS.ProcessEnv) => unknown, env: NodeJS.ProcessEnv): readonly string[] {
  try {
    load(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}
