export * from './projection';
export * from './event-decoder';
export * from './failure-classification';
export * from './consumer-offsets';
export * from './projection-consumer';
export * from './projection.module';
export * from './projection-rebuild';
export * from './projection-cli';
