export * from './event-bus';
export * from './kafka-event-bus';
export * from './kafka-names';
export * from './messaging.module';
export * from './outbox';
export * from './projection';
export * from './postgres-event-log';
export * from './topic-durability';
