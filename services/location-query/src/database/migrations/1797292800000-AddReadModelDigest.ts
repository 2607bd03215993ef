import type { MigrationInterface, QueryRunner } from 'typeorm';

const GROUP_TABLES = ['location_groups', 'address_groups'] as const;

/**
 * bucket(id) and entryHash(id, version) of docs/digest.md in SQL, as stored generated columns, so every write of a row
 * (this release's projection, a replay's, and the previous release's while its pods drain) keeps them right, and a
 * replay's tables (LIKE … INCLUDING ALL) carry them. Both are bigints: digest_key is the first 4 bytes of the bucket
 * (0 to 2^32-1: a prefix of up to 8 hex digits is a range of it), digest_hash the entry hash's 64 bits as a signed
 * number (PostgreSQL has no unsigned 64-bit type; XOR does not care). A uuid's text form is ASCII with no backslash,
 * so `::text::bytea` is exactly its UTF-8 bytes.
 */
const DIGEST_KEY = `('x' || left(encode(sha256(id::text::bytea), 'hex'), 8))::bit(32)::bigint`;
const DIGEST_HASH = `('x' || left(encode(sha256((id::text || ':' || version)::bytea), 'hex'), 16))::bit(64)::bigint`;

/**
 * The Merkle digest of the read model (GET /locations/digest and the group ones; docs/digest.md).
 *
 * digest_nodes holds, per resource, the nodes 3 hex digits deep (`node` = the bucket's first 12 bits, 0 to 4095): how
 * many resources each holds and the XOR of their entry hashes, kept by the projection in the transaction that writes
 * the rows. A node row is split by `slot`, the Kafka partition whose transaction wrote it: one partition's transactions
 * run one at a time (each locks its partition's stored offset first), so partitions never wait on each other's node
 * rows. A node is the sum of its slots' counts and the XOR of their hashes; a slot's share means nothing alone.
 * Shallower nodes are aggregated from these rows on read, deeper ones and entries from the resources' rows through
 * the digest_key index (only the live groups: a tombstone is not in the digest).
 *
 * The backfill computes the nodes of the rows already there in SQL (slot 0), so an existing deployment answers a
 * correct digest at once. Adding the generated columns rewrites the tables (under an exclusive lock, as long as a
 * table scan); readers wait meanwhile.
 *
 * The migration Job runs before the pods are replaced, so pods of the previous release go on writing rows for a while
 * without touching digest_nodes. `digest_for_earlier_writers()`, a row trigger on the live tables, adds their
 * changes (the row's exact old and new entry) in a slot of their connection's own (minus its backend pid: no waits,
 * no lock cycles between them). This release's projection marks its transactions (`lx.digest` = `kept`, set in its
 * statements), which the trigger leaves alone. A replay's rebuilt tables do not copy it (nor need it); a later
 * release drops it where it is left (IF EXISTS).
 */
/**
 * The digest's nodes computed from the rows, in slot 0 (into an empty digest_nodes): the backfill below, and the
 * benchmarks' bulk loads (bench/location-query/bench-support.ts, copyReadModel).
 */
export const DIGEST_NODES_BACKFILL = `
  INSERT INTO digest_nodes (resource, node, slot, count, hash)
  SELECT 'locations', digest_key >> 20, 0, count(*), bit_xor(digest_hash) FROM locations GROUP BY 2
  UNION ALL
  SELECT 'locationGroups', digest_key >> 20, 0, count(*), bit_xor(digest_hash)
    FROM location_groups WHERE NOT deleted GROUP BY 2
  UNION ALL
  SELECT 'addressGroups', digest_key >> 20, 0, count(*), bit_xor(digest_hash)
    FROM address_groups WHERE NOT deleted GROUP BY 2
`;

export class AddReadModelDigest1797292800000 implements MigrationInterface {
  name = 'AddReadModelDigest1797292800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE locations
        ADD COLUMN digest_key bigint NOT NULL GENERATED ALWAYS AS (${DIGEST_KEY}) STORED,
        ADD COLUMN digest_hash bigint NOT NULL GENERATED ALWAYS AS (${DIGEST_HASH}) STORED
    `);
    // Index-only scans: a deep node aggregates (digest_key, digest_hash), entries read id and version.
    await queryRunner.query(
      `CREATE INDEX locations_digest_key_idx ON locations (digest_key) INCLUDE (id, version, digest_hash)`,
    );
    for (const table of GROUP_TABLES) {
      await queryRunner.query(`
        ALTER TABLE ${table}
          ADD COLUMN digest_key bigint NOT NULL GENERATED ALWAYS AS (${DIGEST_KEY}) STORED,
          ADD COLUMN digest_hash bigint NOT NULL GENERATED ALWAYS AS (${DIGEST_HASH}) STORED
      `);
      await queryRunner.query(
        `CREATE INDEX ${table}_digest_key_idx ON ${table} (digest_key) INCLUDE (id, version, digest_hash) WHERE NOT deleted`,
      );
    }
    await queryRunner.query(`
      CREATE TABLE digest_nodes (
        resource text NOT NULL,
        node integer NOT NULL,
        slot integer NOT NULL,
        count bigint NOT NULL,
        hash bigint NOT NULL,
        CONSTRAINT digest_nodes_pkey PRIMARY KEY (resource, node, slot),
        CONSTRAINT digest_nodes_node_check CHECK (node BETWEEN 0 AND 4095)
      )
    `);
    await queryRunner.query(DIGEST_NODES_BACKFILL);
    // TG_ARGV[0] is the resource; a group counts while it lives. OLD.deleted is only read for group tables (PL/pgSQL
    // prepares each statement when it first runs, so the locations' branch never meets it). The function keeps the
    // migration's search_path (the service's schema), so a writer whose session looks elsewhere (psql, a COPY into
    // `<schema>.locations`) still adds to this schema's digest_nodes.
    await queryRunner.query(`
      CREATE FUNCTION digest_for_earlier_writers() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      DECLARE
        delta_count integer := 0;
        delta_hash bigint := 0;
      BEGIN
        IF TG_ARGV[0] = 'locations' THEN
          IF TG_OP = 'UPDATE' THEN
            delta_count := -1;
            delta_hash := OLD.digest_hash;
          END IF;
          delta_count := delta_count + 1;
          delta_hash := delta_hash # NEW.digest_hash;
        ELSE
          IF TG_OP = 'UPDATE' AND NOT OLD.deleted THEN
            delta_count := -1;
            delta_hash := OLD.digest_hash;
          END IF;
          IF NOT NEW.deleted THEN
            delta_count := delta_count + 1;
            delta_hash := delta_hash # NEW.digest_hash;
          END IF;
        END IF;
        IF delta_count <> 0 OR delta_hash <> 0 THEN
          INSERT INTO digest_nodes AS d (resource, node, slot, count, hash)
          VALUES (TG_ARGV[0], (NEW.digest_key >> 20)::integer, -pg_backend_pid(), delta_count, delta_hash)
          ON CONFLICT (resource, node, slot) DO UPDATE SET count = d.count + EXCLUDED.count, hash = d.hash # EXCLUDED.hash;
        END IF;
        RETURN NULL;
      END
      $$
    `);
    for (const [table, resource] of [
      ['locations', 'locations'],
      ['location_groups', 'locationGroups'],
      ['address_groups', 'addressGroups'],
    ] as const) {
      await queryRunner.query(
        `CREATE TRIGGER ${table}_digest_trg AFTER INSERT OR UPDATE ON ${table} FOR EACH ROW
         WHEN (current_setting('lx.digest', true) IS DISTINCT FROM 'kept')
         EXECUTE FUNCTION digest_for_earlier_writers('${resource}')`,
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['locations', ...GROUP_TABLES]) {
      await queryRunner.query(`DROP TRIGGER IF EXISTS ${table}_digest_trg ON ${table}`);
    }
    await queryRunner.query(`DROP FUNCTION digest_for_earlier_writers()`);
    await queryRunner.query(`DROP TABLE digest_nodes`);
    for (const table of ['locations', ...GROUP_TABLES]) {
      await queryRunner.query(`DROP INDEX ${table}_digest_key_idx`);
      await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN digest_hash, DROP COLUMN digest_key`);
    }
  }
}
