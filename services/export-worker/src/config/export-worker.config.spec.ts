import { configProblems, kafkaOf } from '@lx/testing';
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

/** `base` without the settings of the default drivers (EVENT_BUS=kafka, OBJECT_STORE=minio). */
const driverSettings = ['KAFKA_BROKERS', 'MINIO_ENDPOINT_URL', 'MINIO_ACCESS_KEY', 'MINIO_SECRET_KEY'];
const withoutDrivers = Object.fromEntries(Object.entries(base).filter(([name]) => !driverSettings.includes(name)));

describe('export-worker configuration', () => {
  it('given the required settings, when loaded, then its own port, schema and storage defaults apply', () => {
    const config = loadExportWorkerConfig(base);
    expect(config.http.port).toBe(3005);
    expect(config.database.schema).toBe('export_worker');
    expect(kafkaOf(config.eventBus).brokers).toEqual(['127.0.0.1:9092', '127.0.0.2:9092']);
    expect(config.storage).toEqual({
      driver: 'minio',
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
    expect(config.storage).toMatchObject({
      endpointUrl: 'http://minio.internal:9000',
      publicEndpointUrl: 'https://downloads.example.net',
    });
  });

  it('given nothing, when loaded, then every required setting is named (those of the default drivers once the rest are set)', () => {
    expect(problemsOf(withoutDrivers)).toEqual([
      'KAFKA_BROKERS: is required with EVENT_BUS=kafka',
      'MINIO_ENDPOINT_URL: is required with OBJECT_STORE=minio',
      'MINIO_ACCESS_KEY: is required with OBJECT_STORE=minio',
      'MINIO_SECRET_KEY: is required with OBJECT_STORE=minio',
    ]);
    expect(problemsOf({})).toEqual(
      expect.arrayContaining([
        'DATABASE_URL is required',
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

  it('given EVENT_BUS=postgres and OBJECT_STORE=local with its settings, when loaded, then neither Kafka nor MinIO is needed', () => {
    const signingKey = Buffer.alloc(32, 1).toString('base64');
    const config = loadExportWorkerConfig({
      ...withoutDrivers,
      EVENT_BUS: 'postgres',
      OBJECT_STORE: 'local',
      LOCAL_STORE_DIRECTORY: '/data/exports',
      LOCAL_STORE_PUBLIC_URL: 'http://127.0.0.1:8080/downloads',
      LOCAL_STORE_SIGNING_KEY: signingKey,
    });
    expect(config.eventBus).toEqual({ driver: 'postgres' });
    expect(config.storage).toEqual({
      driver: 'local',
      directory: '/data/exports',
      publicBaseUrl: 'http://127.0.0.1:8080/downloads',
      signingKey,
    });
  });
});
