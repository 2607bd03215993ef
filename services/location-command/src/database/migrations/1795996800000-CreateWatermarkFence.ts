import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The watermark fence: one row holding the last watermark handed out (see FenceWatermarkHandler). Write transactions
 * read it under the writers' shared advisory lock and commit only events timed after it. Seeded at -infinity, so no
 * write is refused before the first fence.
 */
export class CreateWatermarkFence1795996800000 implements MigrationInterface {
  name = 'CreateWatermarkFence1795996800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE watermark_fence (
        singleton boolean NOT NULL DEFAULT true,
        fenced_at timestamptz NOT NULL,
        CONSTRAINT watermark_fence_pkey PRIMARY KEY (singleton),
        CONSTRAINT watermark_fence_singleton_check CHECK (singleton)
      )
    `);
    await queryRunner.query(`INSERT INTO watermark_fence (fenced_at) VALUES ('-infinity')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE watermark_fence`);
  }
}
