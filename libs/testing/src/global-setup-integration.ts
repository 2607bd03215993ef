// Runs once before the integration test files. Each file gets topics of its own from the jest environment
// (integration-environment.ts) and deletes them after its last hook; this clears those of runs killed before their
// clean-up. Relative imports: jest resolves globalSetup without the path aliases.
import { loadInfraEnv } from './infra-env';
import { deleteAbandonedTopics, deleteOrphanedGroups } from './kafka-topics';

/** Older than any run of a test file or benchmark: a prefix this old belongs to no run in progress. */
const ABANDONED_AFTER_MS = 24 * 3_600_000;

export default async function globalSetup(): Promise<void> {
  loadInfraEnv();
  const brokers = process.env.KAFKA_BROKERS?.split(',');
  if (!brokers) throw new Error('KAFKA_BROKERS is not set: run "npm run infra:up" before integration tests');
  await deleteAbandonedTopics(brokers, ABANDONED_AFTER_MS);
  await deleteOrphanedGroups(brokers, 0);
}
