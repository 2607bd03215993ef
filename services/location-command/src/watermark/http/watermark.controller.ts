import { Controller, HttpCode, Post } from '@nestjs/common';
import { SCOPES, WATERMARK_FENCE, type WatermarkReply } from '@lx/contracts';
import { RequireScope } from '@lx/platform';
import { FenceWatermarkHandler } from '../commands/fence-watermark/fence-watermark.handler';

/**
 * Internal: the watermark fence for the export worker's chained incremental exports. The public ingress does not
 * route /internal/…; callers inside the cluster still need a token with locations:internal, which only the internal
 * services' client holds (an RSP looping the fence would hold up every write).
 */
@Controller(WATERMARK_FENCE.path.slice(1))
@RequireScope(SCOPES.locationsInternal)
export class WatermarkController {
  constructor(private readonly fenceWatermark: FenceWatermarkHandler) {}

  @Post()
  @HttpCode(200)
  async fence(): Promise<WatermarkReply> {
    const watermark = await this.fenceWatermark.execute();
    return { watermark: watermark.toISOString() };
  }
}
