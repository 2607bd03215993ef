import { CreateExportRequests1795824000000 } from './1795824000000-CreateExportRequests';

/** Every migration of this service, oldest first. */
export const MIGRATIONS = [CreateExportRequests1795824000000];
