// Chooses the message bus from configuration: Kafka when configured, in-process otherwise. The Kafka adapter (and
// kafkajs) load only when chosen; neither connects before the first publish or consume.
import type { PlatformConfig } from '#kernel';
import { InProcessMessageBus } from './in-process-message-bus.js';
import type { BusLog, MessageBus } from './message-bus.port.js';

export type MessageBusConfig = Pick<
  PlatformConfig,
  'messageBus' | 'kafkaBrokers' | 'kafkaClientId' | 'kafkaSessionTimeoutMs'
>;

/** The part of a pino logger the bus writes to. */
export interface MessageBusLogger {
  debug(context: object, message: string): void;
  info(context: object, message: string): void;
  warn(context: object, message: string): void;
  error(context: object, message: string): void;
}

export async function openMessageBus(
  config: MessageBusConfig,
  logger: MessageBusLogger,
): Promise<MessageBus> {
  const log: BusLog = (level, message, context) => logger[level]({ ...context }, message);
  if (config.messageBus === 'kafka') {
    if (config.kafkaBrokers.length === 0) throw new Error('The Kafka message bus needs KAFKA_BROKERS');
    const { KafkaMessageBus } = await import('./kafka/kafka-message-bus.js');
    return new KafkaMessageBus({
      brokers: config.kafkaBrokers,
      clientId: config.kafkaClientId,
      sessionTimeoutMs: config.kafkaSessionTimeoutMs,
      log,
    });
  }
  return new InProcessMessageBus({ log });
}
