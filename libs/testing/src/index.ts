export * from './infra-env';
export * from './private-postgres';
export * from './service-smoke';
export * from './token-issuer';
export * from './wait-for';
