import { Module } from '@nestjs/common';
import { ClientsModule } from '../clients/clients.module';
import { KeysModule } from '../keys/keys.module';
import { IssueTokenHandler } from './commands/issue-token/issue-token.handler';
import { AccessTokenSigner } from './infrastructure/access-token.signer';
import { LocalRevocations } from './infrastructure/local-revocations';
import { PurgeTokenThrottleSchedule } from './infrastructure/purge-token-throttle.schedule';
import { TokenThrottleRepository } from './infrastructure/token-throttle.repository';
import { ListRevocationsHandler } from './queries/list-revocations/list-revocations.handler';

/** Token issuance: the client credentials grant, throttling by source and client, signing; the revocation list. */
@Module({
  imports: [ClientsModule, KeysModule],
  providers: [
    IssueTokenHandler,
    AccessTokenSigner,
    TokenThrottleRepository,
    PurgeTokenThrottleSchedule,
    ListRevocationsHandler,
    LocalRevocations,
  ],
  exports: [IssueTokenHandler, AccessTokenSigner, LocalRevocations],
})
export class TokensModule {}
