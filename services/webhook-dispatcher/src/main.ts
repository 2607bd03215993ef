import 'reflect-metadata';
import { createServiceApp, runMain } from '@lx/platform';
import { AppModule } from './app.module';
import { loadWebhookDispatcherConfig } from './config/webhook-dispatcher.config';

runMain(async () => {
  const config = loadWebhookDispatcherConfig();
  const app = await createServiceApp('webhook-dispatcher', AppModule.register(config), config.http);
  await app.listen(config.http.port, config.http.host);
});
