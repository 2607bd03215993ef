/** Replies assembled from stored JSON text are sent with this type, so Fastify sends the text as it is. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
