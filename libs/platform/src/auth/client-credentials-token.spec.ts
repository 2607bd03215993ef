import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { clientCredentialsToken, TokenRequestError } from './client-credentials-token';

interface Received {
  method: string | undefined;
  contentType: string | undefined;
  accept: string | undefined;
  form: Record<string, string>;
}

/** A token endpoint on 127.0.0.1 that records each request and answers with `reply`. */
async function startTokenEndpoint(
  reply: (response: ServerResponse) => void,
): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      received.push({
        method: request.method,
        contentType: request.headers['content-type'],
        accept: request.headers['accept'],
        form: Object.fromEntries(new URLSearchParams(body)),
      });
      reply(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/oauth/token`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(status: number, body: unknown): (response: ServerResponse) => void {
  return (response) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
}

describe('clientCredentialsToken', () => {
  it('given a token endpoint that issues a token, when asked with a scope, then it posts the grant as a form and returns the token', async () => {
    const endpoint = await startTokenEndpoint(
      json(200, { access_token: 'a.b.c', token_type: 'Bearer', expires_in: 600, scope: 'locations:write' }),
    );
    try {
      const token = await clientCredentialsToken({
        tokenUrl: endpoint.url,
        clientId: 'ops-tool',
        clientSecret: 's3cret&=?',
        scope: 'locations:write',
      });

      expect(token).toBe('a.b.c');
      expect(endpoint.received).toEqual([
        {
          method: 'POST',
          contentType: 'application/x-www-form-urlencoded',
          accept: 'application/json',
          form: {
            grant_type: 'client_credentials',
            client_id: 'ops-tool',
            client_secret: 's3cret&=?',
            scope: 'locations:write',
          },
        },
      ]);
    } finally {
      await endpoint.close();
    }
  });

  it('given no scope, when asked, then the form has no scope parameter', async () => {
    const endpoint = await startTokenEndpoint(json(200, { access_token: 't', token_type: 'Bearer', expires_in: 1 }));
    try {
      await clientCredentialsToken({ tokenUrl: endpoint.url, clientId: 'rsp', clientSecret: 'secret' });

      expect(endpoint.received[0]?.form).toEqual({
        grant_type: 'client_credentials',
        client_id: 'rsp',
        client_secret: 'secret',
      });
    } finally {
      await endpoint.close();
    }
  });

  it('given an RFC 6749 error reply, when asked, then it throws TokenRequestError with the status and the error body', async () => {
    const endpoint = await startTokenEndpoint(json(401, { error: 'invalid_client' }));
    try {
      const error = await clientCredentialsToken({ tokenUrl: endpoint.url, clientId: 'x', clientSecret: 'y' }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );

      expect(error).toBeInstanceOf(TokenRequestError);
      expect(error).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
      expect((error as Error).message).toBe('the token endpoint answered 401: {"error":"invalid_client"}');
    } finally {
      await endpoint.close();
    }
  });

  it('given a reply that is not JSON, when asked, then it throws TokenRequestError quoting the text', async () => {
    const endpoint = await startTokenEndpoint((response) => {
      response.writeHead(502, { 'content-type': 'text/html' });
      response.end('<html>Bad Gateway</html>');
    });
    try {
      await expect(
        clientCredentialsToken({ tokenUrl: endpoint.url, clientId: 'x', clientSecret: 'y' }),
      ).rejects.toMatchObject({
        status: 502,
        body: '<html>Bad Gateway</html>',
        message: 'the token endpoint answered 502: <html>Bad Gateway</html>',
      });
    } finally {
      await endpoint.close();
    }
  });

  it('given a 200 reply without an access_token, when asked, then it throws TokenRequestError', async () => {
    const endpoint = await startTokenEndpoint(json(200, { token_type: 'Bearer' }));
    try {
      await expect(
        clientCredentialsToken({ tokenUrl: endpoint.url, clientId: 'x', clientSecret: 'y' }),
      ).rejects.toBeInstanceOf(TokenRequestError);
    } finally {
      await endpoint.close();
    }
  });
});
