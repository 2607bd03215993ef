import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@lx/platform';
import { loadAuthConfig } from '../config/auth.config';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

/** For the TypeORM CLI (migration:generate / migration:revert); the service itself uses DatabaseModule. */
export default new DataSource(
  dataSourceOptions({ config: loadAuthConfig().database, entities: ENTITIES, migrations: MIGRATIONS }),
);
