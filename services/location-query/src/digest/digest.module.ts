import { Module } from '@nestjs/common';
import { DIGEST_OPTIONS, type DigestOptions } from './digest-options';
import { DigestController } from './http/digest.controller';
import { DigestRepository } from './infrastructure/digest.repository';
import { ReadDigestEntriesHandler } from './queries/read-digest-entries/read-digest-entries.handler';
import { ReadDigestHandler } from './queries/read-digest/read-digest.handler';

@Module({})
export class DigestModule {
  static register(options: DigestOptions) {
    return {
      module: DigestModule,
      controllers: [DigestController],
      providers: [
        DigestRepository,
        ReadDigestHandler,
        ReadDigestEntriesHandler,
        { provide: DIGEST_OPTIONS, useValue: options },
      ],
    };
  }
}
