// The Kafka adapter of the message bus (kafkajs). One producer for every publish (acks from all in-sync replicas,
// one request in flight per broker so a retried batch cannot overtake the next); one kafkajs consumer per consume()
// call, in the Kafka consumer group named by the caller. Offsets are committed only after the handler finished, so
// delivery is at least once; a handler that keeps failing is retried with backoff, then logged and skipped (see the
// port). Topics are created on first use. kafkajs's own logging goes to our log at warn and above; message values
// are never logged.
// Over 300 lines on purpose: the producer, the consumers and their commit-after-handling rule are one adapter
// of the port (at-least-once delivery).
import kafkajs, {
  type Admin,
  type Consumer as KafkaConsumer,
  type IHeaders,
  type KafkaMessage,
  type LogEntry,
  type Producer,
} from 'kafkajs';
import { deliverWithRetries, stderrBusLog, type RetryPolicy } from '../deliver-with-retries.js';
import {
  DEFAULT_MAX_ATTEMPTS,
  type BusLog,
  type BusLogLevel,
  type BusMessage,
  type Consumer,
  type ConsumerOptions,
  type MessageBus,
} from '../message-bus.port.js';

const { Kafka, logLevel, Partitioners } = kafkajs;

export interface KafkaMessageBusOptions {
  /** Bootstrap servers, host:port. */
  readonly brokers: readonly string[];
  readonly clientId: string;
  /** Partitions of a topic this bus creates; 6 by default (the most consumers of one group that can share it). */
  readonly partitions?: number;
  /** Replication factor of a topic this bus creates; 1 by default (raise it on a real cluster). */
  readonly replicationFactor?: number;
  /** Delivery attempts per message before it is logged and skipped; 3 by default. */
  readonly maxAttempts?: number;
  /** Wait before the first retry of a failing handler, doubled after; 200 ms by default. */
  readonly retryBackoffMs?: number;
  /** Partitions one consumer works at the same time (order is kept within each); 1 by default. */
  readonly partitionsConsumedConcurrently?: number;
  /**
   * How long the group waits for a silent member before handing its partitions to the others; 30 s by default. A
   * consumer heartbeats between messages (and between retries), so one handler call must finish within it.
   */
  readonly sessionTimeoutMs?: number;
  /** How long consume() waits for the consumer to join its group; 60 s by default. */
  readonly joinTimeoutMs?: number;
  /** Attempts consume() makes at joining its group (each with a new consumer); 5 by default. */
  readonly joinAttempts?: number;
  /** Wait before the second attempt at joining, doubled after (at most 5 s); 250 ms by default. */
  readonly joinBackoffMs?: number;
  readonly log?: BusLog;
}

/** The id and type travel as headers of these names; a message's own headers of the same names are overridden. */
const ID_HEADER = 'id';
const TYPE_HEADER = 'type';

export function encodeMessage(message: BusMessage): { key: string; value: string; headers: IHeaders } {
  return {
    key: message.key,
    value: JSON.stringify(message.value ?? null),
    headers: { ...message.headers, [ID_HEADER]: message.id, [TYPE_HEADER]: message.type },
  };
}

const headerText = (value: IHeaders[string]): string | undefined => {
  if (value === undefined) return undefined;
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
};

/** The bus message a Kafka record carries; throws when it was not written by this adapter. */
export function decodeMessage(record: Pick<KafkaMessage, 'key' | 'value' | 'headers'>): BusMessage {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(record.headers ?? {})) {
    const text = headerText(value);
    if (text !== undefined) headers[name] = text;
  }
  const { [ID_HEADER]: id, [TYPE_HEADER]: type, ...rest } = headers;
  if (id === undefined || type === undefined) throw new Error('record has no id or type header');
  const value: unknown = record.value === null ? null : JSON.parse(record.value.toString('utf8'));
  return {
    key: record.key?.toString('utf8') ?? '',
    id,
    type,
    value,
    ...(Object.keys(rest).length > 0 ? { headers: rest } : {}),
  };
}

const LEVELS: Readonly<Record<number, BusLogLevel>> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/** kafkajs log fields that say where and why, never what a message held. */
const LOGGED_FIELDS = [
  'broker',
  'clientId',
  'groupId',
  'topic',
  'partition',
  'error',
  'retryCount',
  'retryTime',
];

class StoppingError extends Error {}

interface RunningConsumer {
  readonly consumer: KafkaConsumer;
  stopping: boolean;
  stopped?: Promise<void>;
}

export class KafkaMessageBus implements MessageBus {
  private readonly kafka: InstanceType<typeof Kafka>;
  private readonly log: BusLog;
  private readonly policy: RetryPolicy;
  private readonly topics = new Map<string, Promise<void>>();
  private readonly consumers = new Set<RunningConsumer>();
  private producer?: Promise<Producer>;
  private admin?: Promise<Admin>;
  private warnedAboutTopicCreation = false;
  private closing = false;

  constructor(private readonly options: KafkaMessageBusOptions) {
    if (options.brokers.length === 0) throw new Error('KafkaMessageBus needs at least one broker');
    this.log = options.log ?? stderrBusLog;
    this.policy = {
      maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      backoffMs: options.retryBackoffMs ?? 200,
      log: this.log,
    };
    const log = this.log;
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: [...options.brokers],
      logLevel: logLevel.WARN,
      logCreator:
        () =>
        ({ namespace, level, log: entry }: LogEntry) => {
          const context: Record<string, unknown> = { namespace };
          for (const field of LOGGED_FIELDS) {
            const value: unknown = entry[field];
            if (value !== undefined) context[field] = value instanceof Error ? value.message : value;
          }
          // kafkajs logs every error response of the protocol as an error, those it handles itself (a group
          // rebalancing, a coordinator moving) included; they are warnings here, and what it cannot handle surfaces
          // as a failed call.
          // A consumer's crash is reported by this adapter instead: as consume()'s rejection before the group is
          // joined (the caller decides), as an error after.
          const handled =
            (namespace === 'Connection' && entry.message.startsWith('Response ')) ||
            (namespace === 'Consumer' && entry.message.startsWith('Crash'));
          log(handled ? 'warn' : (LEVELS[level] ?? 'warn'), `kafkajs: ${entry.message}`, context);
        },
    });
  }

  async publish(topic: string, messages: readonly BusMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await this.ensureTopic(topic);
    const producer = await this.connectedProducer();
    await producer.send({ topic, acks: -1, messages: messages.map(encodeMessage) });
  }

  /**
   * Starts a consumer in the group. Joining a group is a few round trips that a broker may refuse for a moment (a
   * rebalance under way, a SyncGroup answered INVALID_REQUEST by a group still settling, a coordinator moving): a
   * failed join is tried again with a new consumer after a backoff, a bounded number of times, before consume()
   * rejects. A consumer that crashes for good later (kafkajs gives up on a rebalance the same way) is replaced by a
   * new one that joins the group again, so one refused rebalance does not stop this process consuming.
   */
  async consume(options: ConsumerOptions): Promise<Consumer> {
    await this.ensureTopic(options.topic);
    const handle: { current: RunningConsumer | null; stopped: boolean } = { current: null, stopped: false };
    const onCrash = (crashed: RunningConsumer, reason: string) => {
      if (handle.stopped || this.closing || crashed.stopping) return;
      this.log('warn', 'message bus: consumer crashed; joining the group again', {
        topic: options.topic,
        group: options.group,
        reason,
      });
      void (async () => {
        await this.stopConsumer(crashed).catch(() => undefined);
        try {
          if (!handle.stopped && !this.closing) handle.current = await this.joinWithRetries(options, onCrash);
        } catch (error) {
          this.log('error', 'message bus: consumer crashed and stopped', {
            topic: options.topic,
            group: options.group,
            reason: error instanceof Error ? error.message : String(error),
          });
        }
      })();
    };
    handle.current = await this.joinWithRetries(options, onCrash);
    return {
      stop: async () => {
        handle.stopped = true;
        if (handle.current) await this.stopConsumer(handle.current);
      },
    };
  }

  private async joinWithRetries(
    options: ConsumerOptions,
    onCrash: (crashed: RunningConsumer, reason: string) => void,
  ): Promise<RunningConsumer> {
    const attempts = this.options.joinAttempts ?? 5;
    let backoffMs = this.options.joinBackoffMs ?? 250;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.joinGroup(options, onCrash);
      } catch (error) {
        if (this.closing || attempt >= attempts) throw error;
        this.log('warn', 'message bus: joining the consumer group failed; trying again', {
          topic: options.topic,
          group: options.group,
          attempt,
          retryInMs: backoffMs,
          reason: error instanceof Error ? error.message : String(error),
        });
        await new Promise((resolve) => setTimeout(resolve, backoffMs));
        backoffMs = Math.min(backoffMs * 2, 5_000);
      }
    }
  }

  private async joinGroup(
    options: ConsumerOptions,
    onCrash: (crashed: RunningConsumer, reason: string) => void,
  ): Promise<RunningConsumer> {
    const sessionTimeout = this.options.sessionTimeoutMs ?? 30_000;
    const consumer = this.kafka.consumer({
      groupId: options.group,
      allowAutoTopicCreation: false,
      sessionTimeout,
      heartbeatInterval: Math.max(100, Math.floor(sessionTimeout / 10)),
      // The Java client's fetch.max.wait.ms: an idle fetch returns after 0.5 s (kafkajs waits 5 s), and stopping a
      // consumer waits for its fetch in flight.
      maxWaitTimeInMs: 500,
    });
    const running: RunningConsumer = { consumer, stopping: false };
    this.consumers.add(running);
    const joined = this.joinedGroup(consumer, options);
    consumer.on(consumer.events.GROUP_JOIN, (event) =>
      options.onAssigned?.(event.payload.memberAssignment[options.topic] ?? []),
    );
    try {
      await consumer.connect();
      // A new group starts at the beginning of the retained log, so nothing published around its start is missed.
      await consumer.subscribe({ topics: [options.topic], fromBeginning: true });
      await consumer.run({
        autoCommit: true,
        partitionsConsumedConcurrently:
          options.concurrency ?? this.options.partitionsConsumedConcurrently ?? 1,
        eachMessage: async ({ topic, partition, message, heartbeat }) => {
          const where = { topic, group: options.group, partition, offset: message.offset };
          let decoded: BusMessage;
          try {
            decoded = decodeMessage(message);
          } catch (error) {
            this.log('error', 'message bus: undecodable record skipped', {
              ...where,
              reason: error instanceof Error ? error.message : String(error),
            });
            return;
          }
          // Returning resolves the offset (committed when its batch is done); throwing leaves it uncommitted, for
          // the group's next member.
          await deliverWithRetries(
            decoded,
            options.handle,
            this.policy,
            where,
            async () => {
              if (running.stopping)
                throw new StoppingError('consumer stopping: the message stays uncommitted');
              await heartbeat();
            },
            { heartbeat },
          );
        },
      });
      await joined.promise;
      consumer.on(consumer.events.CRASH, (event) => {
        if (!event.payload.restart) onCrash(running, event.payload.error.message);
      });
    } catch (error) {
      joined.cancel();
      await this.stopConsumer(running);
      throw error;
    }
    return running;
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.consumers].map((running) => this.stopConsumer(running)));
    const producer = this.producer;
    const admin = this.admin;
    this.producer = undefined;
    this.admin = undefined;
    this.topics.clear();
    await Promise.all([
      producer?.then((p) => p.disconnect()).catch(() => undefined),
      admin?.then((a) => a.disconnect()).catch(() => undefined),
    ]);
  }

  /** Settles at the consumer's first group join (it has its partitions), or if it crashes for good before. */
  private joinedGroup(
    consumer: KafkaConsumer,
    options: ConsumerOptions,
  ): { readonly promise: Promise<void>; cancel(): void } {
    const timeoutMs = this.options.joinTimeoutMs ?? 60_000;
    let cancel = (): void => undefined;
    const promise = new Promise<void>((resolve, reject) => {
      const settle = (error?: Error): void => {
        clearTimeout(timer);
        removeJoin();
        removeCrash();
        if (error) reject(error);
        else resolve();
      };
      const timer = setTimeout(
        () =>
          settle(
            new Error(`consumer of ${options.topic} did not join group ${options.group} in ${timeoutMs} ms`),
          ),
        timeoutMs,
      );
      const removeJoin = consumer.on(consumer.events.GROUP_JOIN, () => settle());
      const removeCrash = consumer.on(consumer.events.CRASH, (event) => {
        if (!event.payload.restart) settle(event.payload.error);
      });
      cancel = () => settle();
    });
    return { promise, cancel };
  }

  private async stopConsumer(running: RunningConsumer): Promise<void> {
    running.stopping = true;
    running.stopped ??= running.consumer.disconnect().finally(() => this.consumers.delete(running));
    await running.stopped;
  }

  private connectedProducer(): Promise<Producer> {
    this.producer ??= (async () => {
      const producer = this.kafka.producer({
        createPartitioner: Partitioners.DefaultPartitioner,
        allowAutoTopicCreation: false,
        maxInFlightRequests: 1,
      });
      await producer.connect();
      return producer;
    })().catch((error: unknown) => {
      this.producer = undefined;
      throw error;
    });
    return this.producer;
  }

  private connectedAdmin(): Promise<Admin> {
    this.admin ??= (async () => {
      const admin = this.kafka.admin();
      await admin.connect();
      return admin;
    })().catch((error: unknown) => {
      this.admin = undefined;
      throw error;
    });
    return this.admin;
  }

  /** Creates the topic once per bus (an existing one is kept as it is) and waits until every partition has a leader. */
  private ensureTopic(topic: string): Promise<void> {
    let ready = this.topics.get(topic);
    if (!ready) {
      ready = this.createTopic(topic).catch((error: unknown) => {
        this.topics.delete(topic);
        throw error;
      });
      this.topics.set(topic, ready);
    }
    return ready;
  }

  private async createTopic(topic: string): Promise<void> {
    const admin = await this.connectedAdmin();
    const { brokers, controller } = await admin.describeCluster();
    if (brokers.some((broker) => broker.nodeId === controller)) {
      await admin.createTopics({
        waitForLeaders: true,
        topics: [
          {
            topic,
            numPartitions: this.options.partitions ?? 6,
            replicationFactor: this.options.replicationFactor ?? 1,
          },
        ],
      });
    } else if (!this.warnedAboutTopicCreation) {
      // CreateTopics goes to the controller. A cluster that names none of its brokers as controller (librdkafka's
      // mock cluster does this) cannot take it; the metadata request below makes the broker auto-create the topic
      // with its own default partition count instead.
      this.warnedAboutTopicCreation = true;
      this.log(
        'warn',
        'message bus: the Kafka cluster names no controller; topics are auto-created by the broker',
        {
          controller,
        },
      );
    }
    await this.waitForLeaders(admin, topic);
  }

  private async waitForLeaders(admin: Admin, topic: string): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
        const partitions = topics.find((t) => t.name === topic)?.partitions ?? [];
        if (partitions.length > 0 && partitions.every((p) => p.partitionErrorCode === 0 && p.leader >= 0))
          return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
      }
      if (Date.now() > deadline)
        throw new Error(`topic ${topic} has no leader for every partition after 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
