import { ClientEntity } from '../clients/infrastructure/client.entity';
import { SigningKeyEntity } from '../keys/infrastructure/signing-key.entity';

/** Every TypeORM entity of this service (token_throttle, token_known_sources and outbox are used through raw SQL). */
export const ENTITIES = [ClientEntity, SigningKeyEntity];
