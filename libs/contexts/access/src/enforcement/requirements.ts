// What a command or query needs before its handler runs, declared on its class: the actions it asks and how their
// resources are loaded. The gate (./access-gate.ts) reads the declaration, loads, asks the policy, and refuses; a
// handler never asks. Three kinds of declaration:
// - `@Requires(Resolver, (resolver, message) => asks)`: the context's resolver (an injectable that loads what the
//   policy reads: an Agent with its Space, a document, a Space with its members) turns the message into asks;
// - `@Requires((message) => asks)`: asks that need nothing loaded (an action on the principal alone);
// - `@Filters(action)`: a list (or a find) whose handler answers only the items the policy allows: it asks `permits`
//   item by item (the route's row is `{ each: action }`); what a handler may not do is refuse by itself;
// - `@AskedAtRoute('why')`: nothing to ask beyond the route's row, which the guard asks (an admin-only route, a
//   person's own account). The reason is required: it is what a reviewer checks.
// A message class without one of them makes the application refuse to start (deny by default).
import type { Type } from '@nestjs/common';
import { ForbiddenError } from '#kernel';
import { AskedAtRoute, MESSAGE_REQUIREMENT } from '#eventsourcing';
import type { PrincipalOrCaller } from '../principal.js';
import type { Action, DenyReason, Resources } from '../policy/policy.js';

/** One question to the policy: may the principal do the action on the resource; if not, what the route answers. */
export interface Ask<A extends Action = Action> {
  readonly action: A;
  readonly resource: Resources[A];
  /** Who asks, when not the message's `principal` (or `caller`). */
  readonly who?: PrincipalOrCaller;
  /** The error a denial answers: by default a 403 with the policy's reason as its code and this message. */
  readonly denied: string | ((reason: DenyReason) => string | Error);
  /** The 403's code when the route has always answered another than the policy's reason. */
  readonly code?: string;
  /** Other questions any of which, allowed, allows this one (a resource that lived in several Spaces). */
  readonly orElse?: readonly Ask[];
}

/** An ask, typed by its action. */
export const ask = <A extends Action>(
  action: A,
  resource: Resources[A],
  denied: Ask<A>['denied'],
  options: { readonly code?: string; readonly who?: PrincipalOrCaller } = {},
): Ask => ({ action, resource, denied, ...options }) as unknown as Ask;

/** Allowed when any of the asks is (the first one's denial answers when none is). */
export const either = (first: Ask, ...others: readonly Ask[]): Ask =>
  others.length === 0 ? first : { ...first, orElse: [...(first.orElse ?? []), ...others] };

export type Asks = Ask | readonly Ask[];

export type Requirement =
  | { readonly kind: 'asks'; readonly asks: (message: object) => Asks | Promise<Asks> }
  | {
      readonly kind: 'resolved';
      readonly resolver: Type;
      readonly asks: (resolver: object, message: object) => Asks | Promise<Asks>;
    }
  | { readonly kind: 'filters'; readonly action: Action }
  | { readonly kind: 'route'; readonly reason: string };

const REQUIREMENT = MESSAGE_REQUIREMENT;

/** Declares what a message asks: with a resolver (loads the resources), or from the message alone. */
export function Requires<M extends object>(asks: (message: M) => Asks | Promise<Asks>): ClassDecorator;
export function Requires<R extends object, M extends object>(
  resolver: Type<R>,
  asks: (resolver: R, message: M) => Asks | Promise<Asks>,
): ClassDecorator;
export function Requires(
  first: Type | ((message: object) => Asks | Promise<Asks>),
  second?: (resolver: object, message: object) => Asks | Promise<Asks>,
): ClassDecorator {
  const requirement: Requirement = second
    ? { kind: 'resolved', resolver: first as Type, asks: second }
    : { kind: 'asks', asks: first as (message: object) => Asks };
  return (target) => {
    Reflect.defineMetadata(REQUIREMENT, requirement, target);
  };
}

export { AskedAtRoute };

/** Declares that the handler answers only what the policy allows of `action`, item by item (`permits`). */
export function Filters(action: Action): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(REQUIREMENT, { kind: 'filters', action } satisfies Requirement, target);
  };
}

/** The message type's declaration; undefined when it declares none. */
export const requirementOf = (type: Type): Requirement | undefined =>
  Reflect.getOwnMetadata(REQUIREMENT, type) as Requirement | undefined;

/** The error a denied ask answers. */
export function denial(asked: Ask, reason: DenyReason): Error {
  const answer = typeof asked.denied === 'string' ? asked.denied : asked.denied(reason);
  return answer instanceof Error ? answer : new ForbiddenError(asked.code ?? reason, answer);
}
