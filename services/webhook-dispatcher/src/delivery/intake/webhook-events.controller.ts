import { Controller, Logger } from '@nestjs/common';
import { Ctx, EventPattern, type KafkaContext, Payload } from '@nestjs/microservices';
import { KAFKA_HEADERS, TOPICS, validateEvent } from '@lx/contracts';
import { DeliveryMetrics } from '../infrastructure/delivery-metrics';
import { isWebhookEvent } from './notification';
import { RecordEventHandler } from './record-event.handler';

/**
 * The intake: event handlers of the @nestjs/microservices Kafka transport (see WebhookIntakeServer) for the
 * location and export events. A handler that throws (Postgres unavailable) leaves the offset uncommitted, so the
 * event comes again; an invalid event is counted and logged and passed over, as no retry can make it valid.
 */
@Controller()
export class WebhookEventsController {
  private readonly logger = new Logger('WebhookIntake');

  constructor(
    private readonly record: RecordEventHandler,
    private readonly metrics: DeliveryMetrics,
  ) {}

  @EventPattern(TOPICS.locationEvents.name)
  onLocationEvent(@Payload() value: unknown, @Ctx() context: KafkaContext): Promise<void> {
    return this.handle(value, context);
  }

  @EventPattern(TOPICS.exportEvents.name)
  onExportEvent(@Payload() value: unknown, @Ctx() context: KafkaContext): Promise<void> {
    return this.handle(value, context);
  }

  private async handle(value: unknown, context: KafkaContext): Promise<void> {
    const message = context.getMessage();
    const position = { topic: context.getTopic(), partition: context.getPartition(), offset: message.offset };
    const validated = validateEvent(value);
    if (!validated.ok) {
      this.metrics.events.inc({ type: 'unknown', outcome: 'invalid' });
      this.logger.error({ msg: 'Invalid event passed over', ...position, issues: validated.issues });
      return;
    }
    const event = validated.value;
    if (!isWebhookEvent(event)) return;
    const header = message.headers?.[KAFKA_HEADERS.correlationId];
    const correlationId = header === undefined || header === null ? undefined : String(header);
    const created = await this.record.execute(event, correlationId);
    this.metrics.events.inc({ type: event.type, outcome: created > 0 ? 'recorded' : 'nothing-new' });
  }
}
