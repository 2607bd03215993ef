import { type ChildProcess, spawn } from 'node:child_process';
import { REGISTER_SWC, REPO_ROOT } from './infra-env';

/** A child Node process running TypeScript sources; its output is kept for assertions and failure messages. */
export interface TsProcess {
  process: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs a TypeScript file of the repository in a child Node process, compiled as jest compiles it. */
export function spawnTs(file: string, env: NodeJS.ProcessEnv): TsProcess {
  const child = spawn(process.execPath, ['-r', REGISTER_SWC, file], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { process: child, output: () => output, exited };
}
