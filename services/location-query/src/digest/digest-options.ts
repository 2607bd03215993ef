/** What the digest reads need besides the database: whose stored offsets are the read model's position. */
export interface DigestOptions {
  /** The read model's consumer group (PROJECTION_GROUP_ID). */
  projectionGroupId: string;
}

export const DIGEST_OPTIONS = Symbol('DIGEST_OPTIONS');
