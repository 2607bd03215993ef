import { type DynamicModule, Module } from '@nestjs/common';
import { FenceWatermarkHandler } from './commands/fence-watermark/fence-watermark.handler';
import { WatermarkController } from './http/watermark.controller';
import { WATERMARK_OPTIONS, WATERMARK_POLL_INTERVAL_MS, type WatermarkOptions } from './watermark-options';

/** The watermark fence of chained incremental exports. Needs DatabaseModule, EventStoreModule (its Clock), metrics. */
@Module({})
export class WatermarkModule {
  static forRoot(options: Omit<WatermarkOptions, 'pollIntervalMs'> & Partial<WatermarkOptions>): DynamicModule {
    return {
      module: WatermarkModule,
      controllers: [WatermarkController],
      providers: [
        FenceWatermarkHandler,
        { provide: WATERMARK_OPTIONS, useValue: { pollIntervalMs: WATERMARK_POLL_INTERVAL_MS, ...options } },
      ],
    };
  }
}
