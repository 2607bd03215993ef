import { ConflictError, ResourceNotFoundError } from '@lx/domain';

/** No signing key has this id: 404 RESOURCE_NOT_FOUND naming resourceType `signingKey`. */
export class SigningKeyNotFoundError extends ResourceNotFoundError {
  constructor(kid: string) {
    super('signingKey', kid);
  }
}

/** The next key has signed nothing, so there is nothing to revoke: 409 CONFLICT (a rotation replaces it). */
export class NextKeyNotRevocableError extends ConflictError {
  constructor(kid: string) {
    super(`signing key ${kid} is the next key and has signed no token; rotate to replace it`, { kid });
  }
}
