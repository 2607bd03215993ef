import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { SCOPES } from '@lx/contracts';
import { RequireScope } from '@lx/platform';
import {
  type RotationResult,
  RotateSigningKeyHandler,
} from '../commands/rotate-signing-key/rotate-signing-key.handler';
import {
  type RevocationResult,
  RevokeSigningKeyHandler,
} from '../commands/revoke-signing-key/revoke-signing-key.handler';
import type { SigningKeyView } from '../domain/signing-key.view';
import { ListSigningKeysHandler } from '../queries/list-signing-keys/list-signing-keys.handler';

/** Signing-key administration (scope auth:admin); the same operations exist in the command-line tool. */
@Controller('admin/keys')
@RequireScope(SCOPES.authAdmin)
export class SigningKeysController {
  constructor(
    private readonly listKeys: ListSigningKeysHandler,
    private readonly rotateKey: RotateSigningKeyHandler,
    private readonly revokeKey: RevokeSigningKeyHandler,
  ) {}

  @Get()
  list(): Promise<{ keys: SigningKeyView[] }> {
    return this.listKeys.execute();
  }

  @Post('rotate')
  @HttpCode(200)
  rotate(): Promise<RotationResult> {
    return this.rotateKey.execute();
  }

  /** Refuses every token the key signed, everywhere within seconds; a current key is rotated out first. */
  @Post(':kid/revoke')
  @HttpCode(200)
  revoke(@Param('kid') kid: string): Promise<RevocationResult> {
    return this.revokeKey.execute({ kid });
  }
}
