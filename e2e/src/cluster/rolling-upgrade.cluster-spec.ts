import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { requireEnv, waitFor } from '@lx/testing';
import { type Location, parseRetryAfter } from '@lx/contracts';
import { type ApiClient, awaitReadSide, awaitSubscription, ClientRegistry, writtenLocation } from '../support/api';
import { startReceiver, stopReceiver } from '../support/receiver';
import { SERVICES } from '../support/services';

const run = promisify(execFile);

/**
 * What .ci/cluster/test.sh names: kubectl, the release's namespace and label, the change to make under load (a
 * `helm upgrade` to this checkout's version, or a `helm rollback` to the previous release), what it is called, the
 * image every pod must run once it is done, and the ingress's access log.
 */
const KUBECTL = requireEnv('KUBECTL');
const NAMESPACE = requireEnv('LX_NAMESPACE');
const RELEASE = requireEnv('LX_RELEASE');
const UPGRADE_COMMAND = requireEnv('LX_UPGRADE_COMMAND');
const PHASE = requireEnv('LX_UPGRADE_PHASE');
const EXPECTED_IMAGE = requireEnv('LX_EXPECTED_IMAGE');
const INGRESS_ACCESS_LOG = requireEnv('LX_INGRESS_ACCESS_LOG');

interface Availability {
  /**
   * Per Deployment: the fewest of its pods ready to serve seen (Ready and not being deleted: what its Service routes
   * to), the fewest available replicas its status reported, the most pods its ReplicaSets were asked to run at once
   * (the sum of their spec.replicas, which maxSurge bounds), the most pods they reported running, the replicas wanted.
   */
  [deployment: string]: {
    minReady: number;
    minReportedAvailable: number;
    maxScheduled: number;
    maxReported: number;
    desired: number;
  };
}

/** Calls `handler` with each line a child process writes to its standard output. */
function onStdoutLines(child: ChildProcess, handler: (line: string) => void): void {
  if (child.stdout) createInterface({ input: child.stdout }).on('line', handler);
}

/**
 * `kubectl get KIND --watch` of the release's objects, one line per object and change (the current ones first): the
 * fields `jsonpath` prints, split at single spaces (an absent field is an empty one, so the columns stay put). One
 * process per kind for the whole phase, instead of a kubectl process per look: the machine the cluster runs on is the
 * one the test runs on. If kubectl ends (the API server closes a watch after 30 to 60 minutes; a phase takes fewer),
 * the watch is started again until stopped, and `restarts` counts it: changes in that gap are not seen.
 */
function watchKind(
  kind: string,
  jsonpath: string,
  onLine: (fields: string[]) => void,
): { stop(): void; restarts(): number } {
  let watching = true;
  let restarts = 0;
  let child: ReturnType<typeof spawn> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const start = () => {
    if (!watching) return;
    child = spawn(
      KUBECTL,
      [
        'get',
        kind,
        '-n',
        NAMESPACE,
        '-l',
        `app.kubernetes.io/instance=${RELEASE}`,
        '--watch',
        '-o',
        `jsonpath=${jsonpath}{"\\n"}`,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    onStdoutLines(child, (line) => {
      if (line.trim()) onLine(line.split(' '));
    });
    let ended = false;
    const restart = () => {
      if (ended || !watching) return;
      ended = true;
      restarts += 1;
      timer = setTimeout(start, 500);
    };
    // A kubectl that could not be started ('error') is tried again as one that ended.
    child.on('error', restart);
    child.on('exit', restart);
  };
  start();
  return {
    stop: () => {
      watching = false;
      clearTimeout(timer);
      child?.kill();
    },
    restarts: () => restarts,
  };
}

/**
 * Watches the release's Deployments, ReplicaSets and pods until stopped, and records each change.
 *
 * Availability is counted from the pods themselves: those Ready and not being deleted, which are the endpoints the
 * Service routes to, counted from the moment the Deployment first has all its replicas ready. A Deployment's
 * status.availableReplicas is a sum of its ReplicaSets' own status counts, each updated by its controller in its own
 * time, so with every change watched it can read one short in a correct rollout; it is recorded, not asserted.
 * Likewise its status.replicas can briefly read desired + 2 (the cause of an earlier failure, "maxPods 4" for desired
 * 2), so the surge is read from the ReplicaSets' spec.replicas, which is what the Deployment controller bounds by
 * maxSurge.
 */
function watchDeployments(): { stop(): Promise<{ availability: Availability; watchRestarts: number }> } {
  const seen: Availability = {};
  const deployments = new Map<
    string,
    { component: string; desired: number; available: number; reported: number; counting: boolean }
  >();
  const replicaSets = new Map<string, { owner: string; replicas: number }>();
  const pods = new Map<string, { component: string; serving: boolean }>();
  const record = () => {
    for (const [name, deployment] of deployments) {
      const { component, desired, available, reported } = deployment;
      let scheduled = 0;
      for (const { owner, replicas } of replicaSets.values()) if (owner === name) scheduled += replicas;
      let ready = 0;
      for (const pod of pods.values()) if (pod.component === component && pod.serving) ready += 1;
      deployment.counting ||= ready >= desired;
      const previous = seen[name] ?? {
        minReady: Infinity,
        minReportedAvailable: Infinity,
        maxScheduled: 0,
        maxReported: 0,
      };
      seen[name] = {
        minReady: deployment.counting ? Math.min(previous.minReady, ready) : previous.minReady,
        minReportedAvailable: Math.min(previous.minReportedAvailable, available),
        maxScheduled: Math.max(previous.maxScheduled, scheduled),
        maxReported: Math.max(previous.maxReported, reported),
        desired,
      };
    }
  };
  const count = (field: string | undefined) => Number(field || 0);
  const component = '{.metadata.labels.app\\.kubernetes\\.io/component}';
  const watches = [
    watchKind(
      'deployments',
      `{.metadata.name} ${component} {.spec.replicas} {.status.availableReplicas} {.status.replicas}`,
      ([name, label, desired, available, reported]) => {
        deployments.set(name!, {
          component: label!,
          desired: count(desired),
          available: count(available),
          reported: count(reported),
          counting: deployments.get(name!)?.counting ?? false,
        });
        record();
      },
    ),
    watchKind(
      'replicasets',
      '{.metadata.name} {.spec.replicas} {.metadata.ownerReferences[?(@.kind=="Deployment")].name}',
      ([name, replicas, owner]) => {
        if (owner) replicaSets.set(name!, { owner, replicas: count(replicas) });
        record();
      },
    ),
    watchKind(
      'pods',
      `{.metadata.name} ${component} {.metadata.deletionTimestamp} {.status.conditions[?(@.type=="Ready")].status}`,
      ([name, label, deleting, ready]) => {
        pods.set(name!, { component: label!, serving: !deleting && ready === 'True' });
        record();
      },
    ),
  ];
  return {
    stop: () => {
      for (const watch of watches) watch.stop();
      return Promise.resolve({
        availability: seen,
        watchRestarts: watches.reduce((sum, watch) => sum + watch.restarts(), 0),
      });
    },
  };
}

/** How often one write refused 503 with Retry-After is repeated before it counts as failed. */
const MAX_RETRIES = 3;

/** The components whose pods an upgrade replaces: the six services and the Ingresses' error backend (edgeErrors). */
const COMPONENTS = [...SERVICES, 'edge-errors'];

/** kubectl's jsonpath output for the release's pods whose component label matches `components`. */
async function releasePods(components: string, jsonpath: string): Promise<string> {
  const { stdout } = await run(KUBECTL, [
    'get',
    'pods',
    '-n',
    NAMESPACE,
    '-l',
    `app.kubernetes.io/instance=${RELEASE},app.kubernetes.io/component ${components}`,
    '-o',
    `jsonpath=${jsonpath}`,
  ]);
  return stdout;
}

async function podsOfRelease(): Promise<string[]> {
  const stdout = await releasePods(`in (${COMPONENTS.join(',')})`, '{.items[*].metadata.name}');
  return stdout.split(/\s+/).filter(Boolean);
}

/** The images the release's pods run, with the pods that run each. */
async function imagesOfRelease(): Promise<Record<string, string[]>> {
  const stdout = await releasePods(
    `in (${COMPONENTS.join(',')})`,
    '{range .items[*]}{.metadata.name}{range .spec.containers[*]} {.image}{end}{"\\n"}{end}',
  );
  const images: Record<string, string[]> = {};
  for (const [pod, ...containers] of stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' '))) {
    for (const image of containers) (images[image] ??= []).push(pod!);
  }
  return images;
}

/**
 * Follows the logs of every pod of the release, those the upgrade starts included, until stopped: a pod that served a
 * failed request may be gone by the time the test looks, and with it the log line that says why (the errorId of a
 * 500 or 503 is only in the serving pod's log). A pod is followed once the watch reports its container running; one
 * whose kubectl ended at once, with nothing, is tried again on its next change.
 */
function followLogs(): { stop(): Promise<void>; linesWith(text: string): string[] } {
  const lines: string[] = [];
  const followed = new Map<string, ReturnType<typeof spawn>>();
  let following = true;
  const follow = (pod: string) => {
    const child = spawn(KUBECTL, ['logs', '-f', '-n', NAMESPACE, pod, '--all-containers'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let read = 0;
    onStdoutLines(child, (line) => {
      read += 1;
      lines.push(`${pod} ${line}`);
    });
    child.on('exit', () => {
      if (read === 0 && following) followed.delete(pod);
    });
    followed.set(pod, child);
  };
  const pods = watchKind(
    'pods',
    '{.metadata.name} {.status.containerStatuses[*].state.running.startedAt}',
    ([pod, running]) => {
      if (following && running && !followed.has(pod!)) follow(pod!);
    },
  );
  return {
    stop: () => {
      following = false;
      pods.stop();
      for (const child of followed.values()) child.kill();
      return Promise.resolve();
    },
    linesWith: (text) => lines.filter((line) => line.includes(text)),
  };
}

/**
 * The ingress's access log from now on: `stop(expected)` returns the requests nginx logged since, and those it answered
 * with a 5xx status. nginx writes a request's line in its log phase, after the response has gone out, so the client
 * can have the last answer before its line is written (a run counted 1,098 lines for 1,099 answered requests): `stop`
 * reads again, for up to 5 s, until the log holds at least the `expected` requests.
 */
async function watchIngressLog(): Promise<{
  stop(expected: number): Promise<{ requests: number; errors: string[] }>;
}> {
  const file = await open(INGRESS_ACCESS_LOG, 'r');
  const start = (await file.stat()).size;
  const read = async () => {
    const end = (await file.stat()).size;
    const buffer = Buffer.alloc(end - start);
    await file.read(buffer, 0, buffer.length, start);
    // The combined format: … "METHOD /path HTTP/1.1" STATUS BYTES …
    const logged = buffer
      .toString('utf8')
      .split('\n')
      .filter((line) => /" \d{3} \d+ /.test(line));
    return { requests: logged.length, errors: logged.filter((line) => /" 5\d\d \d+ /.test(line)) };
  };
  return {
    stop: async (expected) => {
      let result = await read();
      for (let waited = 0; result.requests < expected && waited < 5_000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        result = await read();
      }
      await file.close();
      return result;
    },
  };
}

/** The errorIds of the replies among the failures (a 500's, a 503's). */
function errorIdsOf(failures: readonly string[]): string[] {
  return failures.flatMap((failure) =>
    [...failure.matchAll(/"errorId":"([0-9a-f-]+)"/g)].map((match) => match[1] ?? ''),
  );
}

/**
 * When webhooks are missing: how many, which, what the dispatcher's pods report (their webhook and lag metrics,
 * fetched from each pod's address, as a node reaches it) and what they logged above info.
 */
async function reportWebhooks(
  written: readonly string[],
  delivered: ReadonlySet<string>,
  receipts: number,
  logs: ReturnType<typeof followLogs>,
): Promise<void> {
  const missing = written.filter((id) => !delivered.has(id));
  const report = [
    `webhooks: ${missing.length} of ${written.length} written locations without LOCATION_CREATED (${receipts} receipts); first missing: ${missing.slice(0, 5).join(', ')}`,
  ];
  const stdout = await releasePods(
    '= webhook-dispatcher',
    '{range .items[*]}{.metadata.name} {.status.podIP}{"\\n"}{end}',
  ).catch(() => '');
  for (const [pod, ip] of stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' '))) {
    const metrics = await fetch(`http://${ip}:8080/metrics`, { signal: AbortSignal.timeout(5_000) })
      .then((reply) => reply.text())
      .catch((error: unknown) => `not read: ${String(error)}`);
    const lines = metrics.split('\n').filter((line) => /^(webhook_|projection_consumer_lag|not read)/.test(line));
    report.push(`${pod} (${ip}):`, ...lines);
  }
  const noted = logs
    .linesWith('webhook-dispatcher')
    .filter((line) => /"level":"(warn|error|fatal)"/.test(line))
    .slice(-40);
  report.push('webhook-dispatcher warnings and errors (last 40):', ...noted);
  process.stderr.write(`${report.join('\n')}\n`);
}

function upgrade(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', UPGRADE_COMMAND], { stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

/**
 * A release changed version while the operator keeps writing and an RSP keeps reading and listening (run twice by
 * .ci/cluster/test.sh: the upgrade from the previous release to this checkout, then the rollback to it): no write
 * fails, no read fails, the ingress answers no 5xx but the refusals the writers repeat, every written location
 * reaches the read side and the RSP's webhook, the Deployments replace their pods one at a time without ever dropping
 * below the replicas they should run, and every pod runs the version changed to.
 */

/** What the upgrade's writers create (each with a street number of its own). */
const LOCATION_BODY = {
  geography: { country: 'AU', region: 'VIC', locality: 'Bendigo', postalCode: '3550' },
  address: { streetNumber: '0', streetName: 'Pall Mall', streetType: 'STREET' },
};
describe(`${PHASE} under write load`, () => {
  let registry: ClientRegistry;
  let operator: ApiClient;
  let rsp: ApiClient;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let logs: ReturnType<typeof followLogs> | undefined;

  beforeAll(async () => {
    registry = new ClientRegistry(`cluster ${PHASE}`);
    receiver = await startReceiver();
    operator = await registry.operator();
    ({ client: rsp } = await registry.rspWithWebhook(receiver.url));
    await awaitSubscription(rsp);
  }, 120_000);

  afterAll(async () => {
    await logs?.stop();
    await registry?.disableAll();
    await stopReceiver(receiver);
  });

  it('fails no request, loses no event, and replaces pods one by one', async () => {
    const podsBefore = await podsOfRelease();
    const written: string[] = [];
    const failures: string[] = [];
    // 503s with Retry-After: the service could get no database connection for the write, so the operator's client
    // repeats the write after the wait, as docs/operations.md tells clients to; counted and bounded below.
    const refusals: string[] = [];
    let writing = true;
    const create = async (body: Record<string, unknown>): Promise<string> => {
      for (let attempt = 1; ; attempt += 1) {
        const reply = await operator.post<Location>('/operator/locations', body);
        const retryAfter = reply.headers.get('retry-after');
        if (reply.status !== 503 || retryAfter === null || attempt > MAX_RETRIES) {
          return writtenLocation('POST /operator/locations', reply).location.id;
        }
        refusals.push(reply.text);
        await new Promise((resolve) => setTimeout(resolve, parseRetryAfter(retryAfter, Date.now(), 10_000) ?? 1_000));
      }
    };
    const writer = async (lane: number) => {
      for (let n = 0; writing; n += 1) {
        try {
          written.push(
            await create({ ...LOCATION_BODY, address: { ...LOCATION_BODY.address, streetNumber: `${lane}-${n}` } }),
          );
        } catch (error) {
          failures.push(String(error));
        }
      }
    };
    // An RSP reading while the pods are replaced: locations already on the read side, by id and as a page, one read
    // at a time, 50 ms apart (well under the RSP rate limit). Every read must answer 200.
    const seen: string[] = [];
    for (let n = 0; n < 3; n += 1) {
      seen.push(await create({ ...LOCATION_BODY, address: { ...LOCATION_BODY.address, streetNumber: `0-${n}` } }));
    }
    await Promise.all(seen.map((id) => awaitReadSide(rsp, id, 1, 120_000)));
    written.push(...seen);
    const readFailures: string[] = [];
    let reads = 0;
    const reader = async () => {
      while (writing) {
        const path = reads % 2 === 0 ? `/locations/${seen[reads % seen.length]!}` : '/locations?limit=10';
        reads += 1;
        try {
          const reply = await rsp.get(path);
          if (reply.status !== 200) readFailures.push(`GET ${path}: ${reply.status} ${reply.text.slice(0, 300)}`);
        } catch (error) {
          readFailures.push(`GET ${path}: ${String(error)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const watch = watchDeployments();
    const ingress = await watchIngressLog();
    logs = followLogs();
    const writers = [writer(1), writer(2), reader()];
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const upgradeStarted = Date.now();
    const exitCode = await upgrade();
    const upgradeSeconds = (Date.now() - upgradeStarted) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    writing = false;
    await Promise.all(writers);
    const { requests: ingressRequests, errors: ingressErrors } = await ingress.stop(
      written.length - seen.length + reads,
    );
    const { availability, watchRestarts } = await watch.stop();
    // Old pods finish their preStop pause and graceful shutdown after the rollout is complete.
    await waitFor(
      'the pods of the previous release to be gone',
      async () => (await podsOfRelease()).every((pod) => !podsBefore.includes(pod)),
      120_000,
    );
    const podsAfter = await podsOfRelease();
    const images = await imagesOfRelease();
    // What the pods logged about each failure, before the assertions report it (the logs are followed until the end:
    // the webhooks are checked below).
    for (const errorId of errorIdsOf([...failures, ...refusals, ...readFailures])) {
      process.stderr.write(`logged for errorId ${errorId}:\n${logs.linesWith(errorId).join('\n')}\n`);
    }
    // What the run saw, for the record (docs/kubernetes.md quotes it).
    process.stderr.write(
      `${JSON.stringify({ phase: PHASE, upgradeSeconds, written: written.length, failed: failures.length, refused: refusals.length, reads, readFailures: readFailures.length, ingressRequests, ingress5xx: ingressErrors.length, availability, watchRestarts })}\n`,
    );
    if (ingressErrors.length > 0) process.stderr.write(`the ingress's 5xx:\n${ingressErrors.join('\n')}\n`);

    expect(exitCode).toBe(0);
    expect(failures).toEqual([]);
    expect(written.length).toBeGreaterThan(20);
    expect(readFailures).toEqual([]);
    expect(reads).toBeGreaterThan(100);
    // The documented bound (docs/kubernetes.md): at most 1 % of the writes refused 503 with Retry-After on the way.
    expect(refusals.length).toBeLessThanOrEqual(Math.ceil(written.length / 100));
    // The ingress answered no 5xx beyond those refusals (a 502 or 504 of a pod going away would be one), and its log
    // is the one the writes and reads went through: it holds at least each of them.
    expect(ingressErrors.length).toBeLessThanOrEqual(refusals.length);
    expect(ingressRequests).toBeGreaterThanOrEqual(written.length - seen.length + reads);
    // The record below saw every change: no watch of the Deployments or ReplicaSets ended and left a gap.
    expect(watchRestarts).toBe(0);
    // Every pod runs the version changed to.
    expect(Object.keys(images)).toEqual([EXPECTED_IMAGE]);
    // Every pod was replaced, never more than one extra at a time, never fewer available than wanted.
    expect(Object.keys(availability)).toHaveLength(COMPONENTS.length);
    expect(podsAfter).toHaveLength(Object.values(availability).reduce((sum, { desired }) => sum + desired, 0));
    for (const [deployment, { minReady, maxScheduled, desired }] of Object.entries(availability)) {
      expect({ deployment, minReady, maxScheduled }).toEqual({
        deployment,
        minReady: desired,
        // The new ReplicaSet did run (more than the desired count at some point), and never more than one extra.
        maxScheduled: desired + 1,
      });
    }

    // No event lost: each write reached the read side (through Kafka) and the RSP's webhook (through the dispatcher).
    for (let start = 0; start < written.length; start += 50) {
      await Promise.all(written.slice(start, start + 50).map((id) => awaitReadSide(rsp, id, 1, 120_000)));
    }
    const delivered = () =>
      new Set(
        receiver.receipts
          .filter((receipt) => receipt.path === '/rsp/locations/events')
          .map((receipt) => (JSON.parse(receipt.body) as { event: { type: string; data: { id: string } } }).event)
          .filter((event) => event.type === 'LOCATION_CREATED')
          .map((event) => event.data.id),
      );
    // Up to 7 minutes: a message whose first attempt and 5 s retry both met the rollout is tried again 5 min (±20 %)
    // later (the spec's schedule), and still counts as delivered.
    await waitFor(
      `a LOCATION_CREATED webhook for each of the ${written.length} written locations`,
      () => {
        const received = delivered();
        return Promise.resolve(written.every((id) => received.has(id)));
      },
      420_000,
    ).catch(async (error: unknown) => {
      await reportWebhooks(written, delivered(), receiver.receipts.length, logs!);
      throw error;
    });
  }, 900_000);
});
