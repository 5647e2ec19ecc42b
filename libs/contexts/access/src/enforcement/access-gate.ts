// The one place that enforces who may for commands and queries: the command and query buses hand it every message
// before its handler runs (whoever sends it: a controller, the bridge, a process manager). It reads the message's
// declaration (./requirements.ts), has the context's resolver load what the policy reads, asks the policy each
// question in order, and throws the first denial's error. The guard does the same for a route's own row.
import { Injectable, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { MessageGate } from '#eventsourcing';
import { authorize, type DenyReason } from '../policy/policy.js';
import type { PrincipalOrCaller } from '../principal.js';
import { denial, requirementOf, type Ask, type Asks } from './requirements.js';

/** The principal a message carries: its `principal`, else its `caller`. */
function principalOf(message: object): PrincipalOrCaller | undefined {
  const carried = message as { principal?: PrincipalOrCaller; caller?: PrincipalOrCaller };
  return carried.principal ?? carried.caller;
}

@Injectable()
export class AccessGate implements MessageGate {
  private readonly resolvers = new Map<Type, object>();

  constructor(private readonly moduleRef: ModuleRef) {}

  requireDeclared(messageType: Type): void {
    if (!requirementOf(messageType))
      throw new Error(
        `${messageType.name} declares no access requirement: add @Requires(…) or @AskedAtRoute('why') to it`,
      );
  }

  async admit(message: object): Promise<void> {
    const requirement = requirementOf(message.constructor as Type);
    if (!requirement) {
      this.requireDeclared(message.constructor as Type);
      return;
    }
    if (requirement.kind === 'route' || requirement.kind === 'filters') return;
    const asks =
      requirement.kind === 'asks'
        ? await requirement.asks(message)
        : await requirement.asks(this.resolver(requirement.resolver), message);
    enforce(asks, principalOf(message));
  }

  private resolver(type: Type): object {
    let found = this.resolvers.get(type);
    if (!found) {
      found = this.moduleRef.get(type, { strict: false }) as object;
      this.resolvers.set(type, found);
    }
    return found;
  }
}

/** Asks each question in order; throws the first denial's error. */
function enforce(asks: Asks, carried: PrincipalOrCaller | undefined): void {
  for (const asked of listOf(asks)) {
    const reason = refusal(asked, carried);
    if (reason) throw denial(asked, reason);
  }
}

/** Whether the policy allows every ask: what a list or an answer shows of what a message would be refused. */
export const allowed = (asks: Asks, carried: PrincipalOrCaller | undefined): boolean =>
  listOf(asks).every((asked) => refusal(asked, carried) === null);

const listOf = (asks: Asks): readonly Ask[] => (Array.isArray(asks) ? asks : [asks]) as readonly Ask[];

/** The policy's reason to refuse the ask (none of its alternatives allowed either); null when allowed. */
function refusal(asked: Ask, carried: PrincipalOrCaller | undefined): DenyReason | null {
  const who = asked.who ?? carried;
  // Deny by default: an ask nobody carries is refused.
  if (!who) return 'no_rule';
  const decision = authorize(who, asked.action, asked.resource);
  if (decision.allow) return null;
  return asked.orElse?.some((other) => refusal(other, carried) === null) ? null : decision.reason;
}
