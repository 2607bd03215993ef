import type { ClientKind, Scope } from '@lx/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Row of `clients` (see the migrations for constraints). */
@Entity('clients')
export class ClientEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('text')
  name!: string;

  @Column('text')
  kind!: ClientKind;

  @Column('text', { array: true })
  scopes!: Scope[];

  @Column('text')
  secretHash!: string;

  @Column('boolean')
  enabled!: boolean;

  @Column('integer')
  version!: number;

  @Column('text', { nullable: true })
  webhookUrl!: string | null;

  @Column('bytea', { nullable: true })
  webhookSecretEncrypted!: Buffer | null;

  @Column('timestamptz', { nullable: true })
  tokensIssuedBefore!: Date | null;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  updatedAt!: Date;
}
