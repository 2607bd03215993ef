import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WEBHOOK_PATHS } from '@lx/contracts';
import { LxSyncError } from '../errors';
import type { ReceiveWebhook } from '../use-cases/receive-webhook.use-case';
import type { SyncMetrics } from './sync-metrics';

/** The largest webhook body accepted (a location is about 1 KB). */
const MAX_BODY_BYTES = 1 << 20;

export interface HealthState {
  /** Whether lx-sync is healthy, and why not. */
  health(): Promise<{ ok: boolean; details: Record<string, unknown> }>;
}

/**
 * The HTTP side of `lx-sync run`: `POST /locations/events` and `POST /locations/exports/events` (webhooks, answered
 * 2xx only after their change is committed; 401 for a bad signature, 503 when the mirror cannot write, so the operator
 * retries), `GET /health` (200 or 503 with the reasons) and `GET /metrics`.
 */
export class SyncServer {
  private readonly server: http.Server;
  private stopping = false;

  constructor(
    private readonly receive: ReceiveWebhook,
    private readonly metrics: SyncMetrics,
    private readonly state: HealthState,
    private readonly log: (line: string) => void,
  ) {
    this.server = http.createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        const errorId = randomUUID();
        this.log(`request failed (errorId ${errorId}): ${(error as Error).stack ?? String(error)}`);
        if (!response.headersSent) {
          reply(response, 500, { error: { code: 'INTERNAL_ERROR', message: 'internal error', details: { errorId } } });
        }
      });
    });
  }

  async listen(host: string, port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve());
    });
    return (this.server.address() as AddressInfo).port;
  }

  /**
   * Stops accepting; requests in flight end (their transactions commit) and their connections close after the answer
   * (`connection: close`), idle keep-alive connections at once.
   */
  async close(): Promise<void> {
    this.stopping = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    await closed;
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    if (this.stopping) response.setHeader('connection', 'close');
    const path = new URL(request.url ?? '/', 'http://receiver').pathname;
    if (request.method === 'GET' && path === '/health') {
      const { ok, details } = await this.state.health();
      return reply(response, ok ? 200 : 503, { status: ok ? 'ok' : 'unhealthy', ...details });
    }
    if (request.method === 'GET' && path === '/metrics') {
      response.writeHead(200, { 'content-type': this.metrics.registry.contentType });
      response.end(await this.metrics.registry.metrics());
      return;
    }
    if (path !== WEBHOOK_PATHS.locationEvents && path !== WEBHOOK_PATHS.exportEvents) {
      return reply(response, 404, { error: { code: 'RESOURCE_NOT_FOUND', message: `no route ${path}` } });
    }
    if (request.method !== 'POST') {
      return reply(response, 405, { error: { code: 'METHOD_NOT_ALLOWED', message: 'webhooks are POSTed' } });
    }
    const body = await readBody(request);
    if (body === undefined) {
      // The rest of the body is not read: the connection closes after the answer.
      response.setHeader('connection', 'close');
      reply(response, 413, { error: { code: 'PAYLOAD_TOO_LARGE', message: `over ${MAX_BODY_BYTES} bytes` } });
      response.once('finish', () => request.destroy());
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => [
        name,
        Array.isArray(value) ? value.join(',') : (value ?? ''),
      ]),
    );
    try {
      const outcome = await this.receive.execute(path, headers, body);
      this.metrics.webhooks.inc({ outcome });
      return reply(response, 200, { status: outcome });
    } catch (error) {
      if (error instanceof LxSyncError && error.code === 'SIGNATURE_INVALID') {
        this.metrics.webhooks.inc({ outcome: 'invalid_signature' });
        this.log(`refused a webhook: ${error.message}`);
        return reply(response, 401, { error: { code: error.code, message: error.message } });
      }
      if (error instanceof LxSyncError && error.code === 'INVALID_PAYLOAD') {
        this.metrics.webhooks.inc({ outcome: 'invalid_payload' });
        this.log(`refused a webhook: ${error.message}`);
        return reply(response, 400, { error: { code: error.code, message: error.message } });
      }
      this.metrics.webhooks.inc({ outcome: 'error' });
      this.log(`a webhook could not be applied (the operator will retry it): ${(error as Error).message}`);
      return reply(response, 503, { error: { code: 'UNAVAILABLE', message: 'the mirror could not store the change' } });
    }
  }
}

function reply(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

async function readBody(request: http.IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
