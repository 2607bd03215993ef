import 'reflect-metadata';
import { runMain } from '@lx/platform';
import { loadWebhookDispatcherConfig } from './config/webhook-dispatcher.config';
import { createWebhookDispatcherApp } from './webhook-dispatcher.app';

runMain(async () => {
  const config = loadWebhookDispatcherConfig();
  const { app, start } = await createWebhookDispatcherApp(config);
  await start();
  await app.listen(config.http.port, config.http.host);
  return app;
});
