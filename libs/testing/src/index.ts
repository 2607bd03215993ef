export * from './config-problems';
export * from './infra-env';
export * from './private-postgres';
export * from './service-smoke';
export * from './token-issuer';
export * from './wait-for';
export * from './projections/projection-events';
export * from './projections/projection-position';
export * from './projections/recount';
export * from './event-log';
export * from './kafka-topics';
export * from './replies';
export * from './ts-process';
export * from './private-minio';
// Moved to @lx/platform (the embedded profile's demo data uses it too); tests keep importing it from here.
export { seededRandom } from '@lx/platform';
export * from './api-routes';
export * from './kafka-cluster';
export * from './service-logins';
