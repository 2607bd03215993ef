import { createServiceApp } from '@lx/platform';
import { describeServiceSmoke } from '@lx/testing';
import { AppModule } from '../../src/app.module';
import { loadLocationQueryConfig } from '../../src/config/location-query.config';

describeServiceSmoke({
  name: 'location-query',
  schema: 'location_query',
  tables: ['address_groups', 'consumer_offsets', 'location_groups', 'locations'],
  readiness: ['database', 'kafka'],
  required: ['DATABASE_URL', 'KAFKA_BROKERS'],
  loadConfig: loadLocationQueryConfig,
  createApp: async (env) => {
    const config = loadLocationQueryConfig(env);
    return createServiceApp('location-query', AppModule.register(config), config.http);
  },
});
