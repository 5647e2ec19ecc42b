// The integration events' contract: what other systems read from the message bus. It is its own versioned shape, not
// the log's internal events: a context maps the facts others may rely on (`defineIntegrationEvents`), and the relay
// (relay.ts) publishes them. A type's shape only grows (optional fields); an incompatible change is a new type
// (`….v2`) on a new topic, published beside the old one until its consumers have moved.
//
// Never in an integration event: sealed or erasable content (message and memory texts, document contents), secrets,
// or anything a user could erase. Consumers read those through the API, which applies the access policy.
import type { EventEnvelope } from '#kernel';

export interface IntegrationEvent<TData = Readonly<Record<string, unknown>>> {
  /** The source event's id: the same on every delivery of this event, so consumers de-duplicate on it. */
  readonly id: string;
  /** `<entity>.<fact>.v<version>`, e.g. `agent.created.v1`. */
  readonly type: string;
  readonly version: number;
  /** When the fact happened (the source event's time), ISO 8601. */
  readonly occurredAt: string;
  /** The ids of what the fact is about, e.g. `{ agentId, spaceId }`. */
  readonly subject: Readonly<Record<string, string | null>>;
  /** Ties together every event one request caused (a Space's deletion and its cascade share it). */
  readonly correlationId: string;
  readonly data: TData;
}

/** What a mapping makes of one source event: the integration event less what the relay copies from the envelope. */
export interface MappedEvent {
  /** `<fact>` about the entity, e.g. `created` (the type becomes `<entity>.<fact>.v<version>`). */
  readonly fact: string;
  readonly version?: number;
  readonly subject: Readonly<Record<string, string | null>>;
  readonly data?: Readonly<Record<string, unknown>>;
}

type Mapper = (event: EventEnvelope) => MappedEvent | null;

/** One context's integration events about one kind of entity: per source event type, what it publishes. */
export interface IntegrationEventMap {
  /** `agent`, `document`…: its topic is `agent-platform.<entity>.v1`, its types `<entity>.<fact>.v<n>`. */
  readonly entity: string;
  readonly map: Readonly<Record<string, Mapper>>;
}

/**
 * A context's mapping, typed by its event union E: one entry per event type (null: not published), so a new event
 * of the union is a compile error until the context says whether others hear of it.
 */
export function defineIntegrationEvents<E extends { readonly type: string; readonly data: unknown }>(
  entity: string,
  on: {
    readonly [T in E['type']]:
      ((event: EventEnvelope<T, Extract<E, { type: T }>['data']>) => MappedEvent | null) | null;
  },
): IntegrationEventMap {
  const map: Record<string, Mapper> = {};
  for (const [type, mapper] of Object.entries(on)) if (mapper) map[type] = mapper as Mapper;
  return { entity, map };
}

/** The topic of an entity's integration events (version 1 of the topic layout). */
export const integrationTopic = (entity: string): string => `agent-platform.${entity}.v1`;

/** The integration event for one source event, or null when its context does not publish it. */
export function toIntegrationEvent(
  maps: readonly IntegrationEventMap[],
  event: EventEnvelope,
): { readonly topic: string; readonly event: IntegrationEvent } | null {
  for (const { entity, map } of maps) {
    const mapper = map[event.type];
    if (!mapper) continue;
    const mapped = mapper(event);
    if (!mapped) return null;
    const version = mapped.version ?? 1;
    return {
      topic: integrationTopic(entity),
      event: {
        id: event.id,
        type: `${entity}.${mapped.fact}.v${version}`,
        version,
        occurredAt: event.metadata.occurredAt,
        subject: mapped.subject,
        correlationId: event.metadata.correlationId,
        data: mapped.data ?? {},
      },
    };
  }
  return null;
}
