// The event envelope every store adapter speaks, and the metadata rules of the log.

export type ActorKind = 'user' | 'apiKey' | 'app' | 'embedVisitor' | 'system';

export interface Actor {
  readonly kind: ActorKind;
  readonly id: string;
}

/** Where a request came from: its source address and user agent (never a credential). */
export interface RequestSource {
  readonly address: string | null;
  readonly userAgent: string | null;
}

export interface EventMetadata {
  readonly correlationId: string;
  readonly causationId: string | null;
  readonly actor: Actor;
  readonly occurredAt: string;
  readonly schemaVersion: number;
  /** The request that made the change (absent for the platform's own changes and on events recorded before it). */
  readonly source?: RequestSource;
}

/** A domain event before it is stored: the decider's output plus the envelope's metadata. */
export interface NewEvent<TType extends string = string, TData = unknown> {
  readonly id: string;
  readonly type: TType;
  readonly data: TData;
  readonly metadata: EventMetadata;
}

/** A stored event: its place in its stream (`revision`, from 0) and in the global log (`position`, increasing). */
export interface EventEnvelope<TType extends string = string, TData = unknown> extends NewEvent<
  TType,
  TData
> {
  readonly streamId: string;
  readonly revision: number;
  readonly position: number;
}

/** A domain event as deciders see it: a literal type and readonly data. */
export interface DomainEvent<TType extends string = string, TData = unknown> {
  readonly type: TType;
  readonly data: TData;
}

export const SYSTEM_ACTOR: Actor = Object.freeze({ kind: 'system', id: 'platform' });

/** Every type of an event union, each named once as a key: the compiler checks the list is complete. */
export const eventTypesOf = <E extends DomainEvent>(types: {
  readonly [T in E['type']]: true;
}): E['type'][] => Object.keys(types) as E['type'][];
