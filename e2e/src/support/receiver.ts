import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { envOr } from '@lx/testing';

export interface Receipt {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * Where the RSP's receiver listens: loopback for the local stack; the offline cluster's node address when the
 * dispatcher runs in a pod (deploy/cluster/test.sh sets E2E_RECEIVER_HOST=10.244.0.1).
 */
const RECEIVER_HOST = envOr('E2E_RECEIVER_HOST', '127.0.0.1');

/** The RSP's webhook receiver: a real HTTP server that records every request and answers 200. */
export async function startReceiver(): Promise<{ url: string; receipts: Receipt[]; server: Server }> {
  const receipts: Receipt[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receipts.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString() });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, RECEIVER_HOST, resolve));
  return { url: `http://${RECEIVER_HOST}:${(server.address() as AddressInfo).port}/rsp`, receipts, server };
}

export async function stopReceiver(receiver: { server: Server } | undefined): Promise<void> {
  receiver?.server.closeAllConnections();
  await new Promise((resolve) => receiver?.server.close(resolve) ?? resolve(undefined));
}
