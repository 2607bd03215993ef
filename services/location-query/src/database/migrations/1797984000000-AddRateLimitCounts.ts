import type { MigrationInterface, QueryRunner } from 'typeorm';
import { CREATE_RATE_LIMIT_COUNTS } from '@lx/platform';

/** The request counts of the per-client rate limits, shared by the service's replicas (RateLimitModule). */
export class AddRateLimitCounts1797984000000 implements MigrationInterface {
  name = 'AddRateLimitCounts1797984000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(CREATE_RATE_LIMIT_COUNTS);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE rate_limit_counts');
  }
}
