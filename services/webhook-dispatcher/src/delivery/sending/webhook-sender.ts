import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import { isIP } from 'node:net';
import type { AttemptResult, TransportFailure } from '@lx/domain';
import { type AddressKind, refusedAddressKind } from '@lx/platform';

/** One signed request to send. */
export interface WebhookRequest {
  url: URL;
  /** Every header but Content-Length. */
  headers: Record<string, string>;
  body: string | Buffer;
}

/** What came of it: the verdict's input, plus what the attempt record keeps. */
export interface WebhookResponse {
  result: AttemptResult;
  latencyMs: number;
  /** The first KB of the reply body. */
  excerpt?: string;
  /** The transport failure, in words. */
  error?: string;
}

export interface WebhookSenderOptions {
  connectTimeoutMs: number;
  responseTimeoutMs: number;
  allowedAddressKinds: ReadonlySet<AddressKind>;
  /** Sockets kept per endpoint origin (the endpoint's concurrency). */
  maxSocketsPerOrigin: number;
  /** Name resolution (`dns.lookup` unless a test answers for a name of its own). */
  resolve?: typeof dnsLookup;
}

const EXCERPT_BYTES = 1024;
/** Of a longer reply only this much is read before the socket is dropped: the body is not the dispatcher's business. */
const MAX_READ_BYTES = 64 * 1024;

class AttemptFailure extends Error {
  constructor(
    readonly failure: TransportFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Names under the TLDs RFC 2606 reserves never resolve: refused without asking DNS. */
const RESERVED_NAME = /(^|\.)(example|invalid)\.?$/i;

/** Sockets whose connected address passed the guard. */
const GUARDED = new WeakSet<Socket>();

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|ERR_OSSL_)/;

function failureOf(error: unknown): { failure: TransportFailure; message: string } {
  if (error instanceof AttemptFailure) return { failure: error.failure, message: error.message };
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const message = `${code ? `${code}: ` : ''}${(error as Error).message}`;
  return { failure: TLS_CODES.test(code) ? 'tls' : 'connection', message };
}

/**
 * Sends webhook requests over keep-alive connections with connect and response timeouts, never following redirects.
 * The SSRF guard checks every address a name resolves to before connecting and the address the socket actually
 * connected to (so a DNS answer that changes between check and connect, DNS rebinding, is caught too).
 */
export class WebhookSender {
  private readonly agents: { 'http:': http.Agent; 'https:': https.Agent };
  private readonly lookup: LookupFunction;
  /** IP-literal hosts that passed the guard (the rule for an address never changes while the process runs). */
  private readonly literalsAllowed = new Set<string>();

  constructor(private readonly options: WebhookSenderOptions) {
    const agentOptions = { keepAlive: true, maxSockets: options.maxSocketsPerOrigin, scheduling: 'lifo' as const };
    this.agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };
    const resolve = options.resolve ?? dnsLookup;
    this.lookup = (hostname, lookupOptions, callback) => {
      resolve(hostname, { ...lookupOptions, all: true }, (error, addresses: LookupAddress[]) => {
        if (error) return callback(error, '', 0);
        const refused = addresses
          .map(({ address }) => ({ address, kind: refusedAddressKind(address, options.allowedAddressKinds) }))
          .find(({ kind }) => kind !== undefined);
        if (refused !== undefined) {
          return callback(this.refusal(hostname, refused.address, refused.kind!), '', 0);
        }
        if (lookupOptions.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        const [first] = addresses;
        if (first === undefined)
          return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
        return callback(null, first.address, first.family);
      });
    };
  }

  async send(request: WebhookRequest): Promise<WebhookResponse> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      if (RESERVED_NAME.test(request.url.hostname)) {
        throw new AttemptFailure('connection', `ENOTFOUND: ${request.url.hostname} is a reserved name (RFC 2606)`);
      }
      this.guardLiteral(request.url.hostname);
      const reply = await this.exchange(request);
      return {
        result: {
          kind: 'reply',
          status: reply.status,
          ...(reply.retryAfter === undefined ? {} : { retryAfter: reply.retryAfter }),
        },
        latencyMs: elapsed(),
        excerpt: reply.excerpt,
      };
    } catch (error) {
      const { failure, message } = failureOf(error);
      return { result: { kind: 'failure', failure }, latencyMs: elapsed(), error: message };
    }
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }

  private exchange(request: WebhookRequest): Promise<{ status: number; retryAfter?: string; excerpt: string }> {
    const { url } = request;
    const protocol = url.protocol as 'http:' | 'https:';
    const transport = protocol === 'https:' ? https : http;
    const { body } = request;
    return new Promise((resolve, reject) => {
      const req = transport.request(url, {
        method: 'POST',
        agent: this.agents[protocol],
        lookup: this.lookup,
        headers: request.headers,
      });
      const fail = (error: Error) => {
        clearTimeout(responseTimer);
        clearTimeout(connectTimer);
        req.destroy(error);
        reject(error);
      };
      const responseTimer = setTimeout(
        () => fail(new AttemptFailure('timeout', `no complete reply within ${this.options.responseTimeoutMs} ms`)),
        this.options.responseTimeoutMs,
      );
      let connectTimer: NodeJS.Timeout | undefined;
      req.on('socket', (socket: Socket) => {
        // Once per connection: a kept-alive socket stays connected to the address checked when it was opened.
        const check = () => {
          clearTimeout(connectTimer);
          if (GUARDED.has(socket)) return;
          try {
            if (socket.remoteAddress !== undefined) this.guard(url.hostname, socket.remoteAddress);
            GUARDED.add(socket);
          } catch (error) {
            fail(error as Error);
          }
        };
        if (socket.connecting) {
          connectTimer = setTimeout(
            () => fail(new AttemptFailure('timeout', `no connection within ${this.options.connectTimeoutMs} ms`)),
            this.options.connectTimeoutMs,
          );
          socket.once(protocol === 'https:' ? 'secureConnect' : 'connect', check);
        } else {
          check();
        }
      });
      req.on('error', (error) => {
        clearTimeout(responseTimer);
        clearTimeout(connectTimer);
        reject(error);
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          if (read < EXCERPT_BYTES) chunks.push(chunk);
          read += chunk.length;
          if (read > MAX_READ_BYTES) res.destroy();
        });
        const done = () => {
          clearTimeout(responseTimer);
          const retryAfter = res.headers['retry-after'];
          resolve({
            status: res.statusCode ?? 0,
            ...(retryAfter === undefined ? {} : { retryAfter }),
            excerpt: Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8'),
          });
        };
        res.on('end', done);
        res.on('close', done);
        res.on('error', () => done());
      });
      req.setHeader('content-length', typeof body === 'string' ? Buffer.byteLength(body) : body.length);
      req.end(body);
    });
  }

  /** A host written as an IP address is never looked up: the guard checks it here (once per host). */
  private guardLiteral(hostname: string): void {
    if (this.literalsAllowed.has(hostname)) return;
    const literal = hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal) === 0) return;
    this.guard(hostname, literal);
    if (this.literalsAllowed.size >= 10_000) this.literalsAllowed.clear();
    this.literalsAllowed.add(hostname);
  }

  private guard(hostname: string, address: string): void {
    const kind = refusedAddressKind(address, this.options.allowedAddressKinds);
    if (kind !== undefined) throw this.refusal(hostname, address, kind);
  }

  private refusal(hostname: string, address: string, kind: AddressKind): AttemptFailure {
    return new AttemptFailure(
      'address-not-allowed',
      `${hostname} resolves to ${address}, a ${kind} address that webhooks may not reach (WEBHOOK_ALLOWED_ADDRESS_KINDS)`,
    );
  }
}
