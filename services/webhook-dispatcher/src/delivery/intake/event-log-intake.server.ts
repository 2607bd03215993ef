import { type CustomTransportStrategy, KafkaContext, Server } from '@nestjs/microservices';
import type { KafkaMessage } from 'kafkajs';
import type { ConsumerHandle, EventBus, IncomingMessage } from '@lx/messaging';
import type { ReadinessCheck } from '@lx/platform';
import { INTAKE_TOPICS } from './webhook-intake.server';

export interface EventLogIntakeOptions {
  groupId: string;
  /** Partitions handled at the same time. */
  concurrency: number;
}

/** Messages of one partition handed to the handlers at the same time (as WebhookIntakeServer does). */
const HANDLED_AT_ONCE = 500;

/** The value as the Kafka transport's parser gives it to handlers: parsed JSON, or the text when it is not JSON. */
function parsed(value: Buffer | null): unknown {
  if (value === null) return null;
  const text = value.toString();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The message as the Kafka transport's parser hands it to KafkaContext (value parsed, headers as strings), so the
 * intake's handlers read it as they do from Kafka.
 */
function transportMessage(message: IncomingMessage): KafkaMessage {
  return {
    key: message.key === null ? null : Buffer.from(message.key),
    value: parsed(message.value) as Buffer,
    offset: message.offset,
    headers: message.headers,
    timestamp: String(Date.now()),
    attributes: 0,
  };
}

/**
 * The intake's @nestjs/microservices transport in the embedded profile: the same event handlers
 * (WebhookEventsController), fed from the EventBus port instead of a Kafka consumer, with WebhookIntakeServer's
 * semantics — a new group starts at the end of each partition as it stood when it first joined (no history is sent
 * to RSPs), a batch goes to the handlers at once, and its offsets are stored after every handler of it succeeded.
 */
export class EventLogIntakeServer extends Server implements CustomTransportStrategy, ReadinessCheck {
  readonly name = 'webhook-intake';
  private state: 'starting' | 'joined' | 'crashed' | 'stopped' = 'starting';
  private crash?: string;
  private consumer?: ConsumerHandle;

  constructor(
    private readonly bus: EventBus,
    private readonly intake: EventLogIntakeOptions,
  ) {
    super();
  }

  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      this.consumer = await this.bus.subscribeBatches({
        groupId: this.intake.groupId,
        topics: INTAKE_TOPICS,
        fromBeginning: false,
        partitionsConcurrently: this.intake.concurrency,
        onEvent: (event) => {
          if (event.type === 'joined') this.state = 'joined';
          if (event.type === 'stopped') this.state = 'stopped';
          if (event.type === 'crashed') {
            this.state = 'crashed';
            this.crash = event.error.message;
          }
        },
        handleBatch: async ({ messages }, control) => {
          for (let start = 0; start < messages.length; start += HANDLED_AT_ONCE) {
            if (!control.isActive()) return;
            const chunk = messages.slice(start, start + HANDLED_AT_ONCE);
            await Promise.all(chunk.map((message) => this.handleMessage(message)));
            control.markConsumed(chunk[chunk.length - 1]!.offset);
          }
        },
      });
      callback();
    } catch (error) {
      callback(error);
    }
  }

  async close(): Promise<void> {
    await this.consumer?.stop();
  }

  on(): never {
    throw new Error('EventLogIntakeServer emits no events');
  }

  unwrap<T>(): T {
    return this.bus as T;
  }

  check(): Promise<void> {
    if (this.state === 'joined') return Promise.resolve();
    return Promise.reject(new Error(`the event intake is ${this.state}${this.crash ? `: ${this.crash}` : ''}`));
  }

  private async handleMessage(message: IncomingMessage): Promise<void> {
    const context = new KafkaContext([
      transportMessage(message),
      message.partition,
      message.topic,
      undefined as never,
      () => Promise.resolve(),
      undefined as never,
    ]);
    await this.handleEvent(message.topic, { pattern: message.topic, data: parsed(message.value) }, context);
  }
}
