import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort, REGISTER_SWC, REPO_ROOT, waitFor } from '@lx/testing';

/** A service of this repository running as its own process, which a test may SIGKILL and start again. */
export interface ServiceProcess {
  readonly url: string;
  readonly env: NodeJS.ProcessEnv;
  /** SIGKILL: no shutdown hook runs, the transaction in flight is cut wherever it is. */
  kill(): Promise<void>;
  /** Starts it again with the same environment and waits until it is ready. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The last lines it wrote to stderr, for failure messages. */
  output(): string;
}

export type ServiceName = 'location-command' | 'location-query' | 'statistics-projection';

export async function startServiceProcess(name: ServiceName, env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const fullEnv = { ...env, HTTP_PORT: String(port), HTTP_HOST: '127.0.0.1' };
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const lines: string[] = [];

  const start = async () => {
    child = spawn(process.execPath, ['-r', REGISTER_SWC, join(REPO_ROOT, 'services', name, 'src', 'main.ts')], {
      cwd: REPO_ROOT,
      env: fullEnv,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const current = child;
    current.stderr?.on('data', (chunk: Buffer) => {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      lines.splice(0, Math.max(0, lines.length - 50));
    });
    exited = new Promise((resolve) => current.once('exit', () => resolve()));
    await waitFor(
      `${name} ready at ${url}`,
      async () => {
        if (current.exitCode !== null) throw new Error(`${name} exited: ${lines.join('\n')}`);
        const response = await fetch(`${url}/health/ready`);
        return response.status === 200;
      },
      90_000,
    );
  };
  const signal = async (kind: NodeJS.Signals) => {
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    child.kill(kind);
    await exited;
  };
  await start();
  return {
    url,
    env: fullEnv,
    kill: () => signal('SIGKILL'),
    start,
    stop: () => signal('SIGTERM'),
    output: () => lines.join('\n'),
  };
}

/** Runs a service's CLI (src/cli.ts) to completion; resolves with its stdout, rejects with its stderr. */
export function runServiceCli(
  name: ServiceName,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['-r', REGISTER_SWC, join(REPO_ROOT, 'services', name, 'src', 'cli.ts'), ...args],
      {
        cwd: REPO_ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-20_000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`${name} ${args.join(' ')} exited with ${code}:\n${stderr}`));
    });
  });
}
