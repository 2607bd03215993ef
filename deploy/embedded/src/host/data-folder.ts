import { randomBytes, randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** The secrets of one embedded installation, generated at its first start and kept in its data folder. */
export interface EmbeddedSecrets {
  postgresPassword: string;
  /** Encrypts signing keys and webhook secrets at rest (auth). */
  encryptionKey: string;
  /** Seals webhook secrets into client events (auth and the webhook dispatcher); differs from encryptionKey. */
  webhookSecretTransportKey: string;
  /** Signs the download URLs of the local-file object store. */
  downloadSigningKey: string;
  admin: { clientId: string; clientSecret: string };
  exportWorker: { clientId: string; clientSecret: string };
}

export class AlreadyRunningError extends Error {
  constructor(
    readonly pid: number,
    dataDir: string,
  ) {
    super(`Location Exchange is already running on ${dataDir} (pid ${pid}); stop it (Ctrl-C) before starting another`);
  }
}

function generateSecrets(): EmbeddedSecrets {
  const key = () => randomBytes(32).toString('base64');
  const secret = () => randomBytes(32).toString('base64url');
  return {
    postgresPassword: secret(),
    encryptionKey: key(),
    webhookSecretTransportKey: key(),
    downloadSigningKey: key(),
    admin: { clientId: randomUUID(), clientSecret: secret() },
    exportWorker: { clientId: randomUUID(), clientSecret: secret() },
  };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The folder that holds everything the embedded profile keeps (PostgreSQL's cluster, export files, secrets, logs),
 * and the lock that lets one process at a time use it: a second start while one runs is refused instead of two
 * processes writing the same cluster.
 */
export class DataFolder {
  private locked = false;

  constructor(readonly root: string) {}

  get postgres(): string {
    return join(this.root, 'postgres');
  }

  get exports(): string {
    return join(this.root, 'exports');
  }

  get logs(): string {
    return join(this.root, 'logs');
  }

  private get lockFile(): string {
    return join(this.root, 'lx.pid');
  }

  /** Takes the lock (a pid file created exclusively; one left by a process that is gone is taken over). */
  lock(): void {
    mkdirSync(this.root, { recursive: true });
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        const fd = openSync(this.lockFile, 'wx', 0o600);
        writeSync(fd, String(process.pid));
        closeSync(fd);
        this.locked = true;
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const pid = Number(readFileSync(this.lockFile, 'utf8').trim());
        if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isRunning(pid)) {
          throw new AlreadyRunningError(pid, this.root);
        }
        rmSync(this.lockFile, { force: true });
      }
    }
    throw new Error(`cannot lock ${this.root}`);
  }

  unlock(): void {
    if (!this.locked) return;
    rmSync(this.lockFile, { force: true });
    this.locked = false;
  }

  /** Deletes everything but the lock: the next start is a first start (new secrets, new demo data). */
  reset(): void {
    if (!this.locked) throw new Error('reset needs the lock');
    for (const entry of ['postgres', 'exports', 'logs', 'secrets.json', 'demo.json', 'initialised']) {
      rmSync(join(this.root, entry), { recursive: true, force: true });
    }
  }

  /** True until the first start has completed (see markInitialised). */
  get initialised(): boolean {
    return existsSync(join(this.root, 'initialised'));
  }

  markInitialised(): void {
    writeFileSync(join(this.root, 'initialised'), new Date().toISOString());
  }

  secrets(): EmbeddedSecrets {
    const file = join(this.root, 'secrets.json');
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as EmbeddedSecrets;
    const secrets = generateSecrets();
    writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
    return secrets;
  }
}
