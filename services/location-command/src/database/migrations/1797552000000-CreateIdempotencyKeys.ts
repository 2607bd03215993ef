import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The Idempotency-Keys of creations under a server-generated id (POST /operator/locations): per client and key, the
 * hash of the request body and the stream the key creates, claimed before the stream is written. A key older than
 * 24 hours may be claimed again by a new request.
 */
export class CreateIdempotencyKeys1797552000000 implements MigrationInterface {
  name = 'CreateIdempotencyKeys1797552000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE idempotency_keys (
        client_id text NOT NULL,
        idempotency_key text NOT NULL,
        request_hash text NOT NULL,
        stream_id uuid NOT NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT idempotency_keys_pkey PRIMARY KEY (client_id, idempotency_key)
      )
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE idempotency_keys`);
  }
}
