import { ResourceNotFoundError } from '@lx/domain';

/** No client has this id: 404 RESOURCE_NOT_FOUND naming resourceType `client`. */
export class ClientNotFoundError extends ResourceNotFoundError {
  constructor(clientId: string) {
    super('client', clientId);
  }
}
