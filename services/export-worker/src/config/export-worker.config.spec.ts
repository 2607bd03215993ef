import { configProblems } from '@lx/testing';
import { loadExportWorkerConfig } from './export-worker.config';

const base = {
  DATABASE_URL: 'postgresql://localhost/lx',
  KAFKA_BROKERS: '127.0.0.1:9092,127.0.0.2:9092',
  MINIO_ENDPOINT_URL: 'http://minio.internal:9000',
  MINIO_ACCESS_KEY: 'access',
  MINIO_SECRET_KEY: 'a-secret-value',
  LOCATION_QUERY_URL: 'http://location-query:3003',
  LOCATION_COMMAND_URL: 'http://location-command:3002',
  STATISTICS_URL: 'http://statistics-projection:3004',
  AUTH_TOKEN_URL: 'http://auth:3001/oauth/token',
  SERVICE_CLIENT_ID: 'export-worker',
  SERVICE_CLIENT_SECRET: 'a-client-secret',
};

const problemsOf = (env: NodeJS.ProcessEnv) => configProblems(loadExportWorkerConfig, env);

describe('export-worker configuration', () => {
  it('given the required settings, when loaded, then its own port, schema and storage defaults apply', () => {
    const config = loadExportWorkerConfig(base);
    expect(config.http.port).toBe(3005);
    expect(config.database.schema).toBe('export_worker');
    expect(config.kafka.brokers).toEqual(['127.0.0.1:9092', '127.0.0.2:9092']);
    expect(config.storage).toEqual({
      endpointUrl: 'http://minio.internal:9000',
      publicEndpointUrl: 'http://minio.internal:9000',
      accessKey: 'access',
      secretKey: 'a-secret-value',
      bucket: 'location-exports',
      region: 'us-east-1',
    });
  });

  it('given only the required settings, when loaded, then the export defaults apply', () => {
    const config = loadExportWorkerConfig(base);
    expect(config.limits).toEqual({
      maxLocations: 5_000_000,
      rateLimit: 20,
      rateWindowSeconds: 3600,
      maxUnfinished: 3,
    });
    expect(config.files).toEqual({ linkTtlSeconds: 86_400, retentionSeconds: 604_800 });
    expect(config.jobs).toEqual({
      maxAttempts: 3,
      leaseSeconds: 60,
      retryDelaySeconds: 5,
      concurrency: 2,
      pollIntervalMs: 1000,
    });
    expect(config.serviceClient).toEqual({
      tokenUrl: 'http://auth:3001/oauth/token',
      clientId: 'export-worker',
      clientSecret: 'a-client-secret',
    });
    expect(config.peers.statisticsUrl).toBe('http://statistics-projection:3004');
  });

  it('given a link lifetime beyond the seven days of S3, when loaded, then it is refused and the secret not echoed', () => {
    const problems = problemsOf({ ...base, EXPORT_LINK_TTL_SECONDS: String(7 * 86_400 + 1) });
    expect(problems.some((problem) => problem.startsWith('EXPORT_LINK_TTL_SECONDS:'))).toBe(true);
    expect(problems.join('\n')).not.toContain(base.SERVICE_CLIENT_SECRET);
  });

  it('given a public endpoint, when loaded, then download URLs use it and uploads the internal one', () => {
    const config = loadExportWorkerConfig({ ...base, MINIO_PUBLIC_ENDPOINT_URL: 'https://downloads.example.net' });
    expect(config.storage.endpointUrl).toBe('http://minio.internal:9000');
    expect(config.storage.publicEndpointUrl).toBe('https://downloads.example.net');
  });

  it('given nothing, when loaded, then every required setting is named', () => {
    expect(problemsOf({})).toEqual(
      expect.arrayContaining([
        'DATABASE_URL is required',
        'KAFKA_BROKERS is required',
        'MINIO_ENDPOINT_URL is required',
        'MINIO_ACCESS_KEY is required',
        'MINIO_SECRET_KEY is required',
        'AUTH_TOKEN_URL is required',
        'SERVICE_CLIENT_ID is required',
        'SERVICE_CLIENT_SECRET is required',
        'LOCATION_QUERY_URL is required',
        'LOCATION_COMMAND_URL is required',
        'STATISTICS_URL is required',
      ]),
    );
  });

  it('given an invalid bucket name and endpoint, when loaded, then both are named and no secret is echoed', () => {
    const problems = problemsOf({ ...base, MINIO_BUCKET: 'Not_A_Bucket', MINIO_ENDPOINT_URL: 'ftp://minio' });
    expect(problems.some((problem) => problem.startsWith('MINIO_BUCKET:'))).toBe(true);
    expect(problems.some((problem) => problem.startsWith('MINIO_ENDPOINT_URL:'))).toBe(true);
    expect(problems.join('\n')).not.toContain(base.MINIO_SECRET_KEY);
  });
});
