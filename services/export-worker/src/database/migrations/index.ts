import { CreateExportRequests1795824000000 } from './1795824000000-CreateExportRequests';
import { ExportJobs1795910400000 } from './1795910400000-ExportJobs';
import { AddExportIncludeVersions1795996800000 } from './1795996800000-AddExportIncludeVersions';

/** Every migration of this service, oldest first. */
export const MIGRATIONS = [
  CreateExportRequests1795824000000,
  ExportJobs1795910400000,
  AddExportIncludeVersions1795996800000,
];
