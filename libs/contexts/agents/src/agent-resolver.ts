// What the policy reads about an Agent, loaded for the gate (#access enforcement): the Agent a message names with its
// Space, and the asks of using it (`agent.use`: 403 `agent_access_denied`) and managing it (`agent.manage`: 403
// `space_change_denied`). A command or query declares them with `@Requires(AgentResolver, …)`; the gate asks; its
// handler then reads the Agent with agentById, asking nothing. Other contexts' resolvers start from agentToUse (their
// resources hang off an Agent). Using an Agent is not managing it.
import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError, ValidationError } from '#kernel';
import { ask, asPrincipal, forbidden, permits, type Ask, type PrincipalOrCaller } from '#access';
import { EVENT_STORE, type EventStore } from '#event-store';
import { READ_STORE, type ReadStore } from '#read-store';
import { SpaceGrants, spaceAsOf, spaceToChange, type SpaceView } from '#spaces';
import { agentAsOf } from './agent-as-of.js';
import { readAgent, readSpace } from './agent-reads.js';
import type { AgentView } from './agents.read-model.js';

/** The Agent, or 404 (the handler's read: the gate asked before it). */
export async function agentById(readStore: ReadStore, agentId: string): Promise<AgentView> {
  const agent = await readAgent(readStore, agentId);
  if (!agent) throw new NotFoundError('Agent', agentId);
  return agent;
}

/** The Agent's Space with its members (what `agent.use` reads for the principal's role); null when none or gone. */
export async function spaceOf(
  readStore: ReadStore,
  agent: Pick<AgentView, 'spaceId'>,
): Promise<SpaceView | null> {
  return agent.spaceId ? ((await readSpace(readStore, agent.spaceId)) ?? null) : null;
}

/** The 403 a principal that may not use the Agent gets. */
export const useDenied = (agent: Pick<AgentView, 'id'>): Error =>
  forbidden('agent_access_denied', `this API key is not granted access to Agent '${agent.id}'`);

/** The 403 of an embed visitor of an Agent that is not public. */
export const agentNotPublic = (): Error => forbidden('agent_not_public', 'Agent is not public');

/** The 403 `space_change_denied` of a principal that uses the Agent but may not manage it. */
export const manageDenied = (agent: Pick<AgentView, 'id' | 'spaceId'>): Error =>
  forbidden(
    'space_change_denied',
    agent.spaceId
      ? `you may use Agent '${agent.id}' but not manage it: that needs the right to change its Space '${agent.spaceId}'`
      : `only admins manage Agent '${agent.id}'`,
  );

/** An Agent as the policy reads it, with what asking to use it means. */
export interface AgentToUse {
  readonly agent: AgentView;
  readonly space: SpaceView | null;
  /** `agent.use` on it. */
  readonly asks: readonly Ask[];
}

/** The Agent (404 when there is none) and the ask of using it; `denied` is the 403 the route answers. */
export async function agentToUse(
  readStore: ReadStore,
  agentId: string,
  denied: (agent: AgentView) => Error = useDenied,
): Promise<AgentToUse> {
  const agent = await agentById(readStore, agentId);
  const space = await spaceOf(readStore, agent);
  return { agent, space, asks: [ask('agent.use', { ...agent, space }, () => denied(agent))] };
}

/** The ask of managing the Agent (after using it). */
export const manageAsk = (agent: AgentView, space: SpaceView | null): Ask =>
  ask('agent.manage', { agent, space }, () => manageDenied(agent));

/** Loads what the gate asks about an Agent a message names. */
@Injectable()
export class AgentResolver {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    private readonly grants: SpaceGrants,
  ) {}

  /**
   * `agent.use` on the Agent as it was at `asOf` (404 when it did not exist then or was deleted by then), with its
   * Space now or, deleted since, as it was then: a deleted Agent's past stays readable to whoever could use it.
   */
  async useAsOf(agentId: string, asOf: Date): Promise<readonly Ask[]> {
    const agent = await agentAsOf(this.eventStore, agentId, asOf);
    if (!agent) throw new NotFoundError('Agent', agentId);
    const space =
      (await spaceOf(this.readStore, agent)) ??
      (agent.spaceId ? await spaceAsOf(this.eventStore, agent.spaceId, asOf) : null);
    return [ask('agent.use', { ...agent, space }, () => useDenied(agent))];
  }

  /** `agent.use` by an embed visitor (a public Agent, not personal): 403 `Agent is not public` otherwise. */
  async embed(agentId: string, visitorId: string): Promise<readonly Ask[]> {
    const visitor = { kind: 'embedVisitor', agentId, visitorId } as const;
    const { asks } = await agentToUse(this.readStore, agentId, agentNotPublic);
    return asks.map((asked) => ({ ...asked, who: visitor }));
  }

  /** `agent.create`, and putting the new Agent into its Space (see placeIn). */
  async create(spaceId: string | undefined, who: PrincipalOrCaller): Promise<readonly Ask[]> {
    const create = ask('agent.create', null, 'only keys with access to all Agents can create Agents');
    return spaceId ? [create, ...(await this.placeIn(spaceId, who))] : [create];
  }

  /** Managing the Agent, and moving it when `spaceId` names another Space than its own (see placeIn). */
  async change(
    agentId: string,
    spaceId: string | undefined,
    who: PrincipalOrCaller,
  ): Promise<readonly Ask[]> {
    const { agent, space, asks } = await agentToUse(this.readStore, agentId);
    const manage = [...asks, manageAsk(agent, space)];
    // Naming the Agent's current Space is no move: only a real move asks about the target.
    return spaceId !== undefined && spaceId !== agent.spaceId
      ? [...manage, ...(await this.placeIn(spaceId, who))]
      : manage;
  }

  /**
   * An Agent goes only into a Space the principal may change what is in (`space.content.change`): one it cannot see
   * is 400 `unknown_space` (whether or not it exists), one it only sees is 403. Moving an own Agent into another
   * team's Space gave access to its Knowledge.
   */
  private async placeIn(spaceId: string, who: PrincipalOrCaller): Promise<readonly Ask[]> {
    const unknown = () =>
      new ValidationError('unknown_space', `Space '${spaceId}' does not exist`, 'spaceId');
    const target = await spaceToChange(
      this.readStore,
      this.grants,
      spaceId,
      who,
      'space.content.change',
    ).catch((error: unknown) => {
      throw error instanceof NotFoundError ? unknown() : error;
    });
    return target.asks.map((asked) =>
      asked.action === 'space.read' ? { ...asked, denied: unknown } : asked,
    );
  }

  /** `agent.use`: 404 when there is no such Agent, 403 `agent_access_denied` (or `denied`'s) when out of reach. */
  async use(agentId: string, denied?: (agent: AgentView) => Error): Promise<readonly Ask[]> {
    return (await agentToUse(this.readStore, agentId, denied)).asks;
  }

  /** `agent.use`, then `agent.manage` (403 `space_change_denied`). */
  async manage(agentId: string): Promise<readonly Ask[]> {
    const { agent, space, asks } = await agentToUse(this.readStore, agentId);
    return [...asks, manageAsk(agent, space)];
  }

  /**
   * `agent.manage`, for a principal as `manage` asks it. The platform (a process manager) acts on the log, which the
   * read model may lag (an Agent created a moment ago) or have forgotten (the replay of a deletion): it is asked about
   * the Agent as the read model has it, or else as its id names it; the decider, reading the Agent's stream, then says
   * whether there is anything to do.
   */
  async manageOnLog(agentId: string, who: PrincipalOrCaller): Promise<readonly Ask[]> {
    const principal = asPrincipal(who);
    if (principal.kind !== 'platform') return this.manage(agentId);
    const agent = (await readAgent(this.readStore, agentId)) ?? {
      id: agentId,
      isPersonal: false,
      ownerUserId: null,
      spaceId: null,
    };
    const space = await spaceOf(this.readStore, agent);
    return [
      ask(
        'agent.manage',
        { agent, space },
        `process '${principal.process}' may not manage Agent '${agentId}'`,
      ),
    ];
  }
}

/** Whether the principal manages this Agent: what an answer shows (the Agent's usage of everyone, to its managers). */
export async function managesAgent(
  readStore: ReadStore,
  agent: AgentView,
  who: PrincipalOrCaller,
): Promise<boolean> {
  return permits(who, 'agent.manage', { agent, space: await spaceOf(readStore, agent) });
}
