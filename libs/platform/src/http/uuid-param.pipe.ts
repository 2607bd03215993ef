import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { isUuid } from '@lx/contracts';
import { InvalidRequestError } from '@lx/domain';

/** A UUID path parameter in its canonical lower case (RFC 4122: case-insensitive on input); 400 INVALID_REQUEST otherwise. */
@Injectable()
export class UuidParamPipe implements PipeTransform<string, string> {
  transform(value: string, metadata: ArgumentMetadata): string {
    const field = metadata.data ?? 'id';
    if (!isUuid(value)) {
      throw new InvalidRequestError(`${field} must be a UUID`, {
        issues: [{ field, rule: 'uuid', message: `${field} must be a UUID` }],
      });
    }
    return value.toLowerCase();
  }
}
