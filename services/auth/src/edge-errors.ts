import { once } from 'node:events';
import { z } from 'zod';
import { createEdgeErrorServer, httpEnv, loadConfig, runMain } from '@lx/platform';

/**
 * `lx edge-errors`: the Ingress controller's error backend (createEdgeErrorServer; the chart's edgeErrors). Built with
 * auth, the service of the API's other public pages; it shares nothing with it but the image. Configured by HTTP_HOST
 * and HTTP_PORT only.
 */
const { HTTP_HOST, HTTP_PORT } = httpEnv(8080);

runMain(async () => {
  const config = loadConfig('edge-errors', z.object({ HTTP_HOST, HTTP_PORT }));
  const server = createEdgeErrorServer();
  server.listen(config.HTTP_PORT, config.HTTP_HOST);
  await once(server, 'listening');
  process.stderr.write(
    `${JSON.stringify({ level: 'info', msg: 'edge-errors listening', host: config.HTTP_HOST, port: config.HTTP_PORT })}\n`,
  );
  return {
    close: async () => {
      server.closeIdleConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
});
