import { AddRateLimitCounts1797984000000 } from '@lx/platform';
import { CreateLocationReadModel1795824000000 } from './1795824000000-CreateLocationReadModel';
import { AddLocationCsvRecord1795910400000 } from './1795910400000-AddLocationCsvRecord';
import { CreateLocationChanges1796083200000 } from './1796083200000-CreateLocationChanges';
import { AddGroupChangeTimes1797120000000 } from './1797120000000-AddGroupChangeTimes';
import { AddReadModelDigest1797292800000 } from './1797292800000-AddReadModelDigest';

/** Every migration of this service, oldest first. */
export const MIGRATIONS = [
  CreateLocationReadModel1795824000000,
  AddLocationCsvRecord1795910400000,
  CreateLocationChanges1796083200000,
  AddGroupChangeTimes1797120000000,
  AddReadModelDigest1797292800000,
  AddRateLimitCounts1797984000000,
];
