import { Module } from '@nestjs/common';
import { ClientsModule } from '../clients/clients.module';
import { KeysModule } from '../keys/keys.module';
import { IssueTokenHandler } from './commands/issue-token/issue-token.handler';
import { AccessTokenSigner } from './infrastructure/access-token.signer';
import { PurgeTokenFailuresSchedule } from './infrastructure/purge-token-failures.schedule';
import { TokenFailuresRepository } from './infrastructure/token-failures.repository';

/** Token issuance: the client credentials grant, failure throttling, signing. */
@Module({
  imports: [ClientsModule, KeysModule],
  providers: [IssueTokenHandler, AccessTokenSigner, TokenFailuresRepository, PurgeTokenFailuresSchedule],
  exports: [IssueTokenHandler, AccessTokenSigner],
})
export class TokensModule {}
