// Runs once after the integration test files: deletes the consumer groups a file could not delete with its topics
// (a member of a killed process was still in them). Relative imports: jest resolves globalTeardown without the path
// aliases.
import { deleteOrphanedGroups } from './kafka-topics';

/** Longer than the longest session timeout of the services' consumers (the webhook intake's 30 s). */
const WAIT_FOR_KILLED_MEMBERS_MS = 45_000;

export default async function globalTeardown(): Promise<void> {
  const brokers = process.env.KAFKA_BROKERS?.split(',');
  if (brokers) await deleteOrphanedGroups(brokers, WAIT_FOR_KILLED_MEMBERS_MS);
}
