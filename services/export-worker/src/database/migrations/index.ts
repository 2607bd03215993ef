import { CreateExportRequests1795824000000 } from './1795824000000-CreateExportRequests';
import { ExportJobs1795910400000 } from './1795910400000-ExportJobs';
import { AddExportIncludeVersions1795996800000 } from './1795996800000-AddExportIncludeVersions';
import { AddExportSpreadsheetSafe1797638400000 } from './1797638400000-AddExportSpreadsheetSafe';
import { AddExportFailedRetentionIndex1797724800000 } from './1797724800000-AddExportFailedRetentionIndex';
import { AddExportTraceParent1797984000000 } from './1797984000000-AddExportTraceParent';

/** Every migration of this service, oldest first. */
export const MIGRATIONS = [
  CreateExportRequests1795824000000,
  ExportJobs1795910400000,
  AddExportIncludeVersions1795996800000,
  AddExportSpreadsheetSafe1797638400000,
  AddExportFailedRetentionIndex1797724800000,
  AddExportTraceParent1797984000000,
];
