import { type DynamicModule, Global, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import type { ReadinessCheck, StorageConfig } from '@lx/platform';
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

/**
 * Provides the ObjectStore port, the bucket at start, and a readiness check. The store is MinIO's, unless the caller
 * hands in one (the embedded profile's LocalFileObjectStore, shared by the services of one process).
 */
@Global()
@Module({})
export class StorageModule {
  static forRoot(config: Readonly<StorageConfig>, shared?: ObjectStore): DynamicModule {
    return {
      module: StorageModule,
      providers: [
        { provide: ObjectStore, useFactory: () => shared ?? new MinioObjectStore(config) },
        ObjectStoreReadinessCheck,
        EnsureBucket,
      ],
      exports: [ObjectStore, ObjectStoreReadinessCheck],
    };
  }
}
