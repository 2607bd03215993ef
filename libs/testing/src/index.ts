export * from './infra-env';
export * from './private-postgres';
export * from './service-smoke';
export * from './token-issuer';
export * from './wait-for';
export * from './projections/projection-events';
export * from './projections/projection-position';
export * from './projections/recount';
