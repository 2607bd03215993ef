import { Controller, Get, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { LOCATION_SNAPSHOT, SCOPES } from '@lx/contracts';
import { parseSnapshotQuery, type QueryParameters } from '@lx/domain';
import { RequireScope } from '@lx/platform';
import { valueOrThrow } from '../../shared/http/query-result';
import { StreamSnapshotHandler } from '../queries/stream-snapshot/stream-snapshot.handler';

/**
 * Internal: streams a consistent snapshot of the read model as NDJSON or CSV records for the export worker. The public
 * ingress does not route /internal/…; callers inside the cluster still need a token with locations:internal, which
 * only the internal services' client holds.
 * Parameters: format (json or csv), modifiedSince, locationGroupId, groups=true (json: the snapshot's groups follow
 * the locations, counted in two more headers), versions=true (json: each line ends with its row's version), and
 * catchUp=true to wait (503 after the configured timeout) until the
 * read model has applied the topics the snapshot reads up to their current end before the snapshot is opened.
 */
@Controller(LOCATION_SNAPSHOT.path.slice(1))
@RequireScope(SCOPES.locationsInternal)
export class LocationSnapshotController {
  constructor(private readonly streamSnapshot: StreamSnapshotHandler) {}

  @Get()
  async snapshot(@Query() query: QueryParameters, @Res() reply: FastifyReply): Promise<void> {
    const snapshot = await this.streamSnapshot.execute(valueOrThrow(parseSnapshotQuery(query)));
    if (snapshot.groupCounts !== undefined) {
      void reply
        .header(LOCATION_SNAPSHOT.locationGroupCountHeader, String(snapshot.groupCounts.locationGroups))
        .header(LOCATION_SNAPSHOT.addressGroupCountHeader, String(snapshot.groupCounts.addressGroups));
    }
    await reply
      .header(LOCATION_SNAPSHOT.timestampHeader, snapshot.takenAt.toISOString())
      .header(LOCATION_SNAPSHOT.totalCountHeader, String(snapshot.totalCount))
      .header('cache-control', 'no-store')
      .type(LOCATION_SNAPSHOT.contentTypes[snapshot.format])
      .send(snapshot.stream);
  }
}
