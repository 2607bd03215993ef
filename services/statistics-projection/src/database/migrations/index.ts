import { AddRateLimitCounts1797984000000 } from '@lx/platform';
import { CreateLocationFacts1795824000000 } from './1795824000000-CreateLocationFacts';
import { AddStatisticsRollups1797379200000 } from './1797379200000-AddStatisticsRollups';

/** Every migration of this service, oldest first. */
export const MIGRATIONS = [
  CreateLocationFacts1795824000000,
  AddStatisticsRollups1797379200000,
  AddRateLimitCounts1797984000000,
];
