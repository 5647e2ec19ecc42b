import 'reflect-metadata';
import { Global, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Command, CommandBus, CommandHandler, Query, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { gatedCqrsModule, MESSAGE_GATE } from '#eventsourcing';
import { ForbiddenError, NotFoundError } from '#kernel';
import type { Principal } from '../principal.js';
import { AccessGate, allowed } from './access-gate.js';
import { ask, AskedAtRoute, either, Filters, Requires } from './requirements.js';

const owner: Principal = { kind: 'session', userId: 'usr_1', isAdmin: false };
const stranger: Principal = { kind: 'session', userId: 'usr_2', isAdmin: false };
const platform: Principal = { kind: 'platform', process: 'test' };

/** What the handlers ran, in order: the gate must refuse before any of them. */
const ran: string[] = [];

// A personal Agent of usr_1's: the policy lets usr_1 alone use it.
const AGENTS: Record<string, { id: string; isPersonal: true; ownerUserId: string; spaceId: null }> = {
  agt_1: { id: 'agt_1', isPersonal: true, ownerUserId: 'usr_1', spaceId: null },
};

@Injectable()
class AgentLoader {
  use(agentId: string) {
    const agent = AGENTS[agentId];
    if (!agent) throw new NotFoundError('Agent', agentId);
    return [
      ask('agent.use', { ...agent, space: null }, 'not yours'),
      ask(
        'agent.manage',
        { agent, space: null },
        () => new ForbiddenError('space_change_denied', 'use, not manage'),
      ),
    ];
  }
}

@Requires(AgentLoader, (loader, { agentId }: ChangeThing) => loader.use(agentId))
class ChangeThing extends Command<string> {
  constructor(
    readonly agentId: string,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(ChangeThing)
class ChangeThingHandler {
  execute({ agentId }: ChangeThing) {
    ran.push(`change ${agentId}`);
    return Promise.resolve(agentId);
  }
}

@Requires(() =>
  ask('platform.step', null, 'only the platform takes this step', { code: 'principal_not_supported' }),
)
class PlatformStep extends Command<void> {
  constructor(readonly principal: Principal) {
    super();
  }
}

@CommandHandler(PlatformStep)
class PlatformStepHandler {
  execute() {
    ran.push('step');
    return Promise.resolve();
  }
}

@Filters('agent.use')
class ListThings extends Query<string[]> {
  constructor(readonly caller: Principal) {
    super();
  }
}

@QueryHandler(ListThings)
class ListThingsHandler {
  execute() {
    ran.push('list');
    return Promise.resolve([]);
  }
}

@AskedAtRoute('the route row asks user.self')
class OwnThing extends Query<string> {}

@QueryHandler(OwnThing)
class OwnThingHandler {
  execute() {
    return Promise.resolve('own');
  }
}

class Undeclared extends Command<void> {}

@CommandHandler(Undeclared)
class UndeclaredHandler {
  execute() {
    return Promise.resolve();
  }
}

// Either of two Agents' use allows it (a resource that lived in both).
const useOf = (agentId: string, ownerUserId: string) =>
  ask('agent.use', { id: agentId, isPersonal: true, ownerUserId, space: null }, 'neither');

@Requires(({ owners }: ReadEither) => either(useOf('agt_a', owners[0]), useOf('agt_b', owners[1])))
class ReadEither extends Query<string> {
  constructor(
    readonly owners: readonly [string, string],
    readonly principal: Principal,
  ) {
    super();
  }
}

@QueryHandler(ReadEither)
class ReadEitherHandler {
  execute() {
    ran.push('either');
    return Promise.resolve('read');
  }
}

const handlers = [
  ReadEitherHandler,
  ChangeThingHandler,
  PlatformStepHandler,
  ListThingsHandler,
  OwnThingHandler,
];
// As the access module is: global, so that the CqrsModule's buses find the gate.
@Global()
@Module({
  providers: [AccessGate, { provide: MESSAGE_GATE, useExisting: AccessGate }],
  exports: [MESSAGE_GATE],
})
class GateModule {}

@Module({ imports: [GateModule, gatedCqrsModule()], providers: [AgentLoader, ...handlers] })
class GatedModule {}

@Module({
  imports: [GateModule, gatedCqrsModule()],
  providers: [AgentLoader, ...handlers, UndeclaredHandler],
})
class UndeclaredModule {}

describe('the access gate: every command and query is asked about before its handler runs', () => {
  let app: Awaited<ReturnType<typeof NestFactory.createApplicationContext>>;
  let commands: CommandBus;
  let queries: QueryBus;

  beforeAll(async () => {
    app = await NestFactory.createApplicationContext(GatedModule, { logger: false });
    await app.init();
    commands = app.get(CommandBus);
    queries = app.get(QueryBus);
  });
  afterAll(() => app.close());
  beforeEach(() => ran.splice(0));

  it('runs the handler when the policy allows every ask of the declaration', async () => {
    await expect(commands.execute(new ChangeThing('agt_1', owner))).resolves.toBe('agt_1');
    expect(ran).toEqual(['change agt_1']);
  });

  it('refuses with the first denied ask, its code the policy reason, and the handler never runs', async () => {
    const refused = commands.execute(new ChangeThing('agt_1', stranger));
    await expect(refused).rejects.toBeInstanceOf(ForbiddenError);
    await expect(refused).rejects.toMatchObject({ code: 'agent_access_denied' });
    await expect(refused).rejects.toThrow('not yours');
    expect(ran).toEqual([]);
  });

  it("answers what the resolver's load throws (a 404 for what is not there), before any ask", async () => {
    await expect(commands.execute(new ChangeThing('agt_gone', owner))).rejects.toBeInstanceOf(NotFoundError);
    expect(ran).toEqual([]);
  });

  it("asks a principal-only action from the message alone, with the route's own code", async () => {
    const refused = commands.execute(new PlatformStep(owner));
    await expect(refused).rejects.toMatchObject({ code: 'principal_not_supported' });
    await expect(refused).rejects.toThrow('only the platform takes this step');
    await commands.execute(new PlatformStep(platform));
    expect(ran).toEqual(['step']);
  });

  it('lets a filtered list and a route-asked query through to their handlers', async () => {
    await expect(queries.execute(new ListThings(stranger))).resolves.toEqual([]);
    await expect(queries.execute(new OwnThing())).resolves.toBe('own');
    expect(ran).toEqual(['list']);
  });

  it('allows an ask with alternatives when any of them is allowed, and answers the first denial when none is', async () => {
    await expect(queries.execute(new ReadEither(['usr_2', 'usr_1'], owner))).resolves.toBe('read');
    await expect(queries.execute(new ReadEither(['usr_2', 'usr_3'], owner))).rejects.toThrow('neither');
    expect(ran).toEqual(['either']);
    expect(allowed(either(useOf('agt_a', 'usr_2'), useOf('agt_b', 'usr_1')), owner)).toBe(true);
    expect(allowed([useOf('agt_a', 'usr_1'), useOf('agt_b', 'usr_2')], owner)).toBe(false);
  });

  it('refuses to start an application with a message that declares nothing (deny by default)', async () => {
    const starting = NestFactory.createApplicationContext(UndeclaredModule, { logger: false }).then(
      (started) => started.init(),
    );
    await expect(starting).rejects.toThrow(/Undeclared declares no access requirement/);
  });
});
