// What a host that runs this service in its own process needs (the embedded profile, deploy/embedded).
export { loadWebhookDispatcherConfig, type WebhookDispatcherConfig } from './config/webhook-dispatcher.config';
export { createWebhookDispatcherApp } from './webhook-dispatcher.app';
