// Every command and query passes one gate before its handler runs: the buses below ask it, whoever sends the message
// (a controller, the bridge, a process manager). The access context is the gate (who may); the kit knows nothing of
// principals, only that a message is admitted or refused. A message type the gate knows nothing of is refused at
// start-up: the application does not start with a handler nobody declared the rights of (deny by default).
import type { DynamicModule, Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { CommandBus, CqrsModule, QueryBus, type Command, type Query } from '@nestjs/cqrs';

export interface MessageGate {
  /** Resolves when the handler may run; throws the error a refused message answers (403, or 404 hiding a thing). */
  admit(message: object): Promise<void>;
  /** Throws when the message type declares nothing the gate asks. */
  requireDeclared(messageType: Type): void;
}

/** The gate's token: provided by the access context (global), optional so that a bare kit test runs without it. */
export const MESSAGE_GATE = Symbol('MESSAGE_GATE');

/** Where a message type's declaration is kept (the access context's decorators write it, its gate reads it). */
export const MESSAGE_REQUIREMENT = Symbol('access.requirement');

/**
 * Declares that the message asks nothing beyond its route's row, which the guard asks (an admin-only route, a person's
 * own account, the public health page), or that only the platform sends it: `reason` says why, for a reviewer. Here
 * rather than in the access context so that a message of the shared core (the operations' health queries) declares
 * itself too.
 */
export function AskedAtRoute(reason: string): ClassDecorator {
  if (!reason.trim()) throw new Error('@AskedAtRoute needs its reason');
  return (target) => {
    Reflect.defineMetadata(MESSAGE_REQUIREMENT, { kind: 'route', reason }, target);
  };
}

/** What @nestjs/cqrs stores on a handler class: the message class it handles. */
const HANDLED = { command: '__commandHandler__', query: '__queryHandler__' } as const;

type Handlers = Parameters<CommandBus['register']>[0] | Parameters<QueryBus['register']>[0];

function messageTypes(handlers: NonNullable<Handlers>, key: string): Type[] {
  return handlers.flatMap((handler) => {
    const type = (
      handler.inject ? (handler.instance as object | undefined)?.constructor : handler.metatype
    ) as Type | undefined;
    const message = type ? (Reflect.getMetadata(key, type) as Type | undefined) : undefined;
    return message ? [message] : [];
  });
}

export class GatedCommandBus extends CommandBus {
  constructor(
    moduleRef: ModuleRef,
    private readonly gate: MessageGate | null,
  ) {
    super(moduleRef, {});
  }

  override async execute<R>(command: Command<R>): Promise<R> {
    if (this.gate) await this.gate.admit(command);
    return super.execute(command);
  }

  override register(handlers: Parameters<CommandBus['register']>[0] = []): void {
    for (const type of messageTypes(handlers, HANDLED.command)) this.gate?.requireDeclared(type);
    super.register(handlers);
  }
}

export class GatedQueryBus extends QueryBus {
  constructor(
    moduleRef: ModuleRef,
    private readonly gate: MessageGate | null,
  ) {
    super(moduleRef, {});
  }

  override async execute<R>(query: Query<R>): Promise<R> {
    if (this.gate) await this.gate.admit(query);
    return super.execute(query);
  }

  override register(handlers: Parameters<QueryBus['register']>[0] = []): void {
    for (const type of messageTypes(handlers, HANDLED.query)) this.gate?.requireDeclared(type);
    super.register(handlers);
  }
}

/** The CqrsModule with its command and query buses gated. */
export function gatedCqrsModule(): DynamicModule {
  const root = CqrsModule.forRoot();
  const gate = { token: MESSAGE_GATE, optional: true };
  return {
    ...root,
    providers: [
      ...(root.providers ?? []),
      {
        provide: CommandBus,
        useFactory: (moduleRef: ModuleRef, found?: MessageGate) =>
          new GatedCommandBus(moduleRef, found ?? null),
        inject: [ModuleRef, gate],
      },
      {
        provide: QueryBus,
        useFactory: (moduleRef: ModuleRef, found?: MessageGate) =>
          new GatedQueryBus(moduleRef, found ?? null),
        inject: [ModuleRef, gate],
      },
    ],
  };
}
