import { LocalFileObjectStore } from './local-file-object-store';
import { MinioObjectStore } from './minio-object-store';
import { objectStoreFor } from './storage.module';

describe('objectStoreFor (OBJECT_STORE)', () => {
  it('given minio, then the MinIO adapter', () => {
    const minio = {
      driver: 'minio' as const,
      endpointUrl: 'http://minio:9000',
      publicEndpointUrl: 'http://minio:9000',
      accessKey: 'access',
      secretKey: 'secret',
      bucket: 'location-exports',
      region: 'us-east-1',
    };
    expect(objectStoreFor(minio)).toBeInstanceOf(MinioObjectStore);
  });

  it('given local, then the file store with the base64 signing key decoded (a short key is refused)', () => {
    const local = {
      driver: 'local' as const,
      directory: '/tmp/lx-exports',
      publicBaseUrl: 'http://127.0.0.1:8080/downloads',
    };
    const store = objectStoreFor({ ...local, signingKey: Buffer.alloc(32, 3).toString('base64') });
    expect(store).toBeInstanceOf(LocalFileObjectStore);
    expect((store as LocalFileObjectStore).downloadPath).toBe('/downloads');
    expect(() => objectStoreFor({ ...local, signingKey: Buffer.alloc(31, 3).toString('base64') })).toThrow(
      'at least 32 bytes',
    );
  });
});
