export * from './object-store';
export * from './minio-object-store';
export * from './storage.module';
