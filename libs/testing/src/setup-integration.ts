import { loadInfraEnv } from './infra-env';

process.env.TZ = 'UTC';
loadInfraEnv();
