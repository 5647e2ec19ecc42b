// The message bus port: integration events and work distribution between processes. Delivery is at least once, keyed
// (messages with one key keep their order), and every message carries the id of the event it maps, so consumers
// de-duplicate. The embedded adapter is in-process; the Kafka adapter (kafkajs) comes with the integration-events issue.

export interface BusMessage {
  /** Partitioning key: the source stream, so one entity's messages stay in order. */
  readonly key: string;
  /** The source event id: consumers de-duplicate on it. */
  readonly id: string;
  readonly type: string;
  readonly value: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface ConsumerOptions {
  readonly topic: string;
  /** Consumers of one group share a topic's messages; each group receives every message. */
  readonly group: string;
  readonly handle: (message: BusMessage) => Promise<void>;
}

export interface Consumer {
  stop(): Promise<void>;
}

export interface MessageBus {
  /** Resolves once the bus has accepted every message (durably, for engines that are). */
  publish(topic: string, messages: readonly BusMessage[]): Promise<void>;
  consume(options: ConsumerOptions): Promise<Consumer>;
  close(): Promise<void>;
}

export const MESSAGE_BUS = Symbol('MESSAGE_BUS');
