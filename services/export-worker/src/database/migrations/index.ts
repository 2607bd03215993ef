import { CreateExportRequests1795824000000 } from './1795824000000-CreateExportRequests';
import { ExportJobs1795910400000 } from './1795910400000-ExportJobs';

/** Every migration of this service, oldest first. */
export const MIGRATIONS = [CreateExportRequests1795824000000, ExportJobs1795910400000];
