import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@lx/platform';
import { loadAuthConfig } from '../config/auth.config';
import { MIGRATIONS } from './migrations';

/** For the TypeORM CLI (migration:generate / migration:revert); the service itself uses DatabaseModule. */
export default new DataSource(
  dataSourceOptions({ config: loadAuthConfig().database, entities: [], migrations: MIGRATIONS }),
);
