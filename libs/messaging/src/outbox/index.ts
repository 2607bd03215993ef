export * from './contract-event';
export * from './outbox';
export * from './outbox-relay';
export * from './outbox-retention.schedule';
export * from './outbox.module';
export * from './relay-source';
export * from './relay-thread';
