import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@lx/platform';
import { REPO_ROOT } from './infra-env';
import { type KafkaLogin, testKafkaLogin } from './kafka-topics';
import { waitFor } from './wait-for';

const SCRIPT = join(REPO_ROOT, 'deploy', 'local', 'kafka-cluster.sh');

/**
 * Three Kafka nodes of one KRaft cluster on loopback (deploy/local/kafka-cluster.sh), each broker and controller, for
 * a test that needs replicas on other brokers: partitions with three replicas and min.insync.replicas 2, a node that
 * can be SIGKILLed and started again. Node ids are the broker ids kafkajs' metadata names as partition leaders.
 */
export interface KafkaCluster {
  /** The three client listeners, for KAFKA_BROKERS. */
  readonly brokers: string[];
  /** How its admin logs in (TLS with the cluster's own CA, SCRAM-SHA-512), for the test's own clients. */
  readonly login: KafkaLogin;
  /** The same login as a service reads it: KAFKA_TLS, KAFKA_TLS_CA_FILE, KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD. */
  readonly loginEnv: Record<string, string>;
  /** Configuration, data and logs of the three nodes (node-<id>/kafka.log). */
  readonly dir: string;
  /** The pid of a node's JVM while it runs. */
  pidOf(nodeId: number): number | undefined;
  /** SIGKILLs a node (no controlled shutdown, no leadership handed over) and resolves once its process is gone. */
  kill(nodeId: number): Promise<void>;
  /** Starts the nodes that are not running and resolves once each has started. */
  start(): Promise<void>;
  /** Stops every node; the directory is removed unless `keep` (its logs explain a failed test). */
  stop(options?: { keep?: boolean }): Promise<void>;
}

function run(
  command: 'start' | 'stop',
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile('bash', [SCRIPT, command], { env, timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error) reject(new Error(`kafka-cluster.sh ${command} failed (${error.message}):\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts three nodes on free ports in a new directory under the system's temporary directory, so runs of other
 * checkouts (a CI run beside a developer's) never share a port or a file. The nodes are tied to this process: if it
 * dies before stop(), the script's watchdog SIGKILLs them. A start that fails stops what it started.
 */
export async function startKafkaCluster(timeoutMs = 120_000): Promise<KafkaCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'lx-kafka-cluster-'));
  const ports: number[] = [];
  // One at a time: freePort's port is free until something binds it, and six calls at once may get one twice.
  while (ports.length < 6) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LX_KAFKA_CLUSTER_DIR: dir,
    LX_KAFKA_CLUSTER_PORTS: ports.slice(0, 3).join(','),
    LX_KAFKA_CLUSTER_CONTROLLER_PORTS: ports.slice(3).join(','),
    LX_KAFKA_CLUSTER_OWNER_PID: String(process.pid),
  };
  const pids = new Map<number, number>();
  let brokers: string[] = [];
  const loginEnv: Record<string, string> = { KAFKA_TLS: 'true' };
  const start = async () => {
    const { stdout } = await run('start', env, timeoutMs);
    for (const line of stdout.split('\n')) {
      const node = /^KAFKA_NODE_(\d+)_PID=(\d+)$/.exec(line);
      if (node) pids.set(Number(node[1]), Number(node[2]));
      if (line.startsWith('KAFKA_BROKERS=')) brokers = line.slice('KAFKA_BROKERS='.length).split(',');
      const login = /^(KAFKA_TLS_CA_FILE|KAFKA_SASL_USERNAME|KAFKA_SASL_PASSWORD)=(.+)$/.exec(line);
      if (login) loginEnv[login[1]!] = login[2]!;
    }
  };
  const stop = async (options: { keep?: boolean } = {}) => {
    await run('stop', env, 60_000);
    pids.clear();
    if (options.keep !== true) await rm(dir, { recursive: true, force: true });
  };
  try {
    await start();
  } catch (error) {
    await stop({ keep: true }).catch(() => undefined);
    throw error;
  }
  return {
    get brokers() {
      return [...brokers];
    },
    login: testKafkaLogin({ ...loginEnv, KAFKA_SASL_MECHANISM: 'scram-sha-512' }),
    loginEnv: { ...loginEnv },
    dir,
    pidOf: (nodeId) => pids.get(nodeId),
    async kill(nodeId) {
      const pid = pids.get(nodeId);
      if (pid === undefined) throw new Error(`Kafka node ${nodeId} is not running`);
      process.kill(pid, 'SIGKILL');
      pids.delete(nodeId);
      await waitFor(`Kafka node ${nodeId} (pid ${pid}) to exit`, () => Promise.resolve(!isRunning(pid)), 10_000);
    },
    start,
    stop,
  };
}
