import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@lx/platform';
import { loadExportWorkerConfig } from '../config/export-worker.config';
import { MIGRATIONS } from './migrations';

/** For the TypeORM CLI (migration:generate / migration:revert); the service itself uses DatabaseModule. */
export default new DataSource(
  dataSourceOptions({ config: loadExportWorkerConfig().database, entities: [], migrations: MIGRATIONS }),
);
