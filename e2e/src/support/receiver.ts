import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { envOr } from '@lx/testing';

export interface Receipt {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * Where the RSP's receiver listens: loopback for the local stack; the offline cluster's node address when the
 * dispatcher runs in a pod (.ci/cluster/test.sh sets E2E_RECEIVER_HOST=10.244.0.1).
 */
const RECEIVER_HOST = envOr('E2E_RECEIVER_HOST', '127.0.0.1');

/** A location or group as an RSP's mirror keeps it: the newest version received, and its data. */
export interface MirroredLocation {
  version: number;
  data: unknown;
}

/**
 * The RSP's webhook receiver: a real HTTP server that records every request and answers 200. Like an RSP's sync, it
 * keeps a mirror of the locations and groups its change events carry (their ids are UUIDs, never shared), by the event's `version`: an event not newer than the
 * version it holds (a stale or repeated one) is discarded and counted.
 */
export async function startReceiver(): Promise<{
  url: string;
  receipts: Receipt[];
  mirror: Map<string, MirroredLocation>;
  discarded: Receipt[];
  server: Server;
}> {
  const receipts: Receipt[] = [];
  const mirror = new Map<string, MirroredLocation>();
  const discarded: Receipt[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const receipt = { path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString() };
      receipts.push(receipt);
      if (receipt.path.endsWith('/locations/events')) {
        const { event } = JSON.parse(receipt.body) as { event: { version: number; data: { id: string } } };
        const held = mirror.get(event.data.id);
        if (held !== undefined && held.version >= event.version) discarded.push(receipt);
        else mirror.set(event.data.id, { version: event.version, data: event.data });
      }
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, RECEIVER_HOST, resolve));
  const url = `http://${RECEIVER_HOST}:${(server.address() as AddressInfo).port}/rsp`;
  return { url, receipts, mirror, discarded, server };
}

/** A port free on the receiver host now (a receiver of another process binds it a moment later). */
export async function freeReceiverPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((done) => server.listen(0, RECEIVER_HOST, done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

export async function stopReceiver(receiver: { server: Server } | undefined): Promise<void> {
  receiver?.server.closeAllConnections();
  await new Promise((resolve) => receiver?.server.close(resolve) ?? resolve(undefined));
}
