export * from './object-store';
export * from './minio-object-store';
export * from './local-file-object-store';
export * from './local-file-signature';
export * from './local-file-downloads';
export * from './storage.module';
