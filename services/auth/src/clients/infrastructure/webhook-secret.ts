/** Additional authenticated data of a sealed webhook secret: it decrypts only as this client's. */
export const webhookSecretContext = (clientId: string): string => `webhook-secret:${clientId}`;
