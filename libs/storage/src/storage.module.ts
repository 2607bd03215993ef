import { type DynamicModule, Global, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import type { LocalStorageConfig, ReadinessCheck, StorageConfig } from '@lx/platform';
import { LocalFileObjectStore } from './local-file-object-store';
import { MinioObjectStore } from './minio-object-store';
import { ObjectStore } from './object-store';

@Injectable()
export class ObjectStoreReadinessCheck implements ReadinessCheck {
  readonly name = 'objectStore';
  constructor(private readonly store: ObjectStore) {}

  check(): Promise<void> {
    return this.store.ping();
  }
}

@Injectable()
class EnsureBucket implements OnModuleInit {
  constructor(private readonly store: ObjectStore) {}

  onModuleInit(): Promise<void> {
    return this.store.ensureBucket();
  }
}

/** The ObjectStore of OBJECT_STORE: MinIO (or S3), or files in a directory with signed download URLs. */
export function objectStoreFor(config: Readonly<StorageConfig>): ObjectStore {
  return config.driver === 'minio' ? new MinioObjectStore(config) : localFileStoreOf(config);
}

/** The local file store of LOCAL_STORE_* settings (also what serves its downloads: localFileDownloads). */
export function localFileStoreOf(config: Readonly<LocalStorageConfig>): LocalFileObjectStore {
  return new LocalFileObjectStore({
    directory: config.directory,
    publicBaseUrl: config.publicBaseUrl,
    signingKey: Buffer.from(config.signingKey, 'base64'),
  });
}

/** Provides the ObjectStore port of the configured driver (OBJECT_STORE), the bucket at start, and a readiness check. */
@Global()
@Module({})
export class StorageModule {
  static forRoot(config: Readonly<StorageConfig>): DynamicModule {
    return {
      module: StorageModule,
      providers: [
        { provide: ObjectStore, useFactory: () => objectStoreFor(config) },
        ObjectStoreReadinessCheck,
        EnsureBucket,
      ],
      exports: [ObjectStore, ObjectStoreReadinessCheck],
    };
  }
}
