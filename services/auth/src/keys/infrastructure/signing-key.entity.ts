import type { JWK } from 'jose';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { SigningAlgorithm } from '../domain/signing-key';

/** Row of `signing_keys`; unique partial indexes allow one next key (not activated) and one current key. */
@Entity('signing_keys')
export class SigningKeyEntity {
  @PrimaryColumn('text')
  kid!: string;

  @Column('text')
  algorithm!: SigningAlgorithm;

  @Column('jsonb')
  publicJwk!: JWK;

  @Column('bytea')
  privateKeyEncrypted!: Buffer;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz', { nullable: true })
  activatedAt!: Date | null;

  @Column('timestamptz', { nullable: true })
  retiredAt!: Date | null;

  @Column('timestamptz', { nullable: true })
  revokedAt!: Date | null;
}
