/** The six services of a deployment, as the system tests name them (and their `<SERVICE>_URL` variables). */
export const SERVICES = [
  'auth',
  'location-command',
  'location-query',
  'statistics-projection',
  'export-worker',
  'webhook-dispatcher',
] as const;
export type Service = (typeof SERVICES)[number];
