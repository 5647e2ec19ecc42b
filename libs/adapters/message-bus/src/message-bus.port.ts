// The message bus port: integration events and work distribution between processes. Delivery is at least once, keyed
// (messages with one key keep their order), and every message carries the id of the event it maps, so consumers
// de-duplicate. Adapters: in-process (embedded) and Kafka (kafkajs), chosen by openMessageBus.
//
// A handler that keeps failing does not block its key forever: after a bounded number of attempts the adapter logs
// the message's id and type (never its value) and moves on. Consumers must therefore be able to recover such work
// from the event log, which ours can: they are fed by a checkpointed relay and the log is the source of truth.

export interface BusMessage {
  /** Partitioning key: the source stream, so one entity's messages stay in order. */
  readonly key: string;
  /** The source event id: consumers de-duplicate on it. */
  readonly id: string;
  readonly type: string;
  readonly value: unknown;
  /** Free-form string headers; `id` and `type` are reserved (adapters carry the fields above under those names). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** What a handler can do while it holds a message. */
export interface Delivery {
  /**
   * Tells the group this consumer is alive. A handler that may run longer than a few seconds calls it every few
   * seconds, or the group hands its partitions to another member (and the message is delivered again).
   */
  heartbeat(): Promise<void>;
}

export interface ConsumerOptions {
  readonly topic: string;
  /** Consumers of one group share a topic's messages; each group receives every message. */
  readonly group: string;
  readonly handle: (message: BusMessage, delivery: Delivery) => Promise<void>;
  /** Messages of different keys this consumer handles at the same time (order is kept per key); 1 by default. */
  readonly concurrency?: number;
  /** Told the topic's partitions this consumer holds, at every (re)balance of its group (operators' view). */
  readonly onAssigned?: (partitions: readonly number[]) => void;
}

export interface Consumer {
  stop(): Promise<void>;
}

export interface MessageBus {
  /** Resolves once the bus has accepted every message (durably, for engines that are). */
  publish(topic: string, messages: readonly BusMessage[]): Promise<void>;
  /** Resolves once the consumer is subscribed and will receive messages published from now on. */
  consume(options: ConsumerOptions): Promise<Consumer>;
  close(): Promise<void>;
}

export type BusLogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Where adapters report what no caller can hear (a message given up on, a broker warning). Never given values. */
export type BusLog = (
  level: BusLogLevel,
  message: string,
  context?: Readonly<Record<string, unknown>>,
) => void;

/** Delivery attempts per message before an adapter gives it up (logged, then skipped). */
export const DEFAULT_MAX_ATTEMPTS = 3;

export const MESSAGE_BUS = Symbol('MESSAGE_BUS');
