import type { IncomingMessage, ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** One notification the demo RSP received. */
export interface ReceivedWebhook {
  receivedAt: string;
  path: string;
  webhookId: string | undefined;
  eventType: string | undefined;
  /** Whether the Standard Webhooks signature checks out with the demo RSP's webhook secret. */
  signatureValid: boolean;
  body: unknown;
}

/** How many notifications the receiver keeps (the newest). */
const KEPT = 100;
const MAX_BODY_BYTES = 1 << 20;

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(`${JSON.stringify(body, null, 2)}\n`);
}

/**
 * The demo RSP's webhook endpoint, mounted on the public port at `prefix` (its webhook URL): it answers every POST
 * 200, checks the signature as an RSP would (the standardwebhooks library with the RSP's secret), and keeps the
 * newest notifications in memory; GET `prefix` lists them, newest first.
 */
export class DemoReceiver {
  private readonly received: ReceivedWebhook[] = [];
  private verifier?: Webhook;

  constructor(private readonly prefix: string) {}

  /** The demo RSP's webhook secret (whsec_…), known once the RSP is registered. */
  useSecret(secret: string): void {
    this.verifier = new Webhook(secret);
  }

  readonly handle = (request: IncomingMessage, response: ServerResponse): void => {
    const path = (request.url ?? '').split('?')[0]!;
    if (request.method === 'GET' && (path === this.prefix || path === `${this.prefix}/`)) {
      return json(response, 200, { received: [...this.received].reverse() });
    }
    if (request.method !== 'POST') {
      response.setHeader('allow', 'GET, POST');
      return json(response, 405, { error: { code: 'METHOD_NOT_ALLOWED', message: 'GET lists, POST receives' } });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      this.record(path, request, text);
      response.writeHead(200).end();
    });
  };

  private record(path: string, request: IncomingMessage, text: string): void {
    const header = (name: string) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    let signatureValid = false;
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // kept as text
    }
    try {
      this.verifier?.verify(text, {
        'webhook-id': header('webhook-id') ?? '',
        'webhook-timestamp': header('webhook-timestamp') ?? '',
        'webhook-signature': header('webhook-signature') ?? '',
      });
      signatureValid = this.verifier !== undefined;
    } catch {
      signatureValid = false;
    }
    this.received.push({
      receivedAt: new Date().toISOString(),
      path: path.slice(this.prefix.length) || '/',
      webhookId: header('webhook-id'),
      eventType: header('x-event-type') ?? (body as { type?: string } | null)?.type,
      signatureValid,
      body,
    });
    if (this.received.length > KEPT) this.received.splice(0, this.received.length - KEPT);
  }
}
