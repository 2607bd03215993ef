import { MinioObjectStore } from '../../src';
import { requireEnv, uniqueSuffix } from '@lx/testing';
import { describeObjectStoreContract } from './object-store-contract';

describeObjectStoreContract('MinioObjectStore against the real MinIO', () => {
  const endpointUrl = requireEnv('MINIO_ENDPOINT_URL');
  const publicEndpointUrl = process.env.MINIO_PUBLIC_ENDPOINT_URL ?? endpointUrl;
  const store = new MinioObjectStore({
    endpointUrl,
    publicEndpointUrl,
    accessKey: requireEnv('MINIO_ACCESS_KEY'),
    secretKey: requireEnv('MINIO_SECRET_KEY'),
    bucket: `it-${uniqueSuffix()}`,
    region: 'us-east-1',
  });
  return Promise.resolve({ store, publicBaseUrl: publicEndpointUrl });
});
