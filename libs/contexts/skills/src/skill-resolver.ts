// What the policy reads about a Skill's place, loaded for the gate (#access enforcement): a global (DEFAULT) Skill is
// seen by everyone and changed by admins; a Space Skill is seen by whoever sees the Space and changed by whoever may
// change it; an Agent Skill is seen by whoever may use the Agent and changed by them when they manage it (an admin,
// the owner of a personal Agent, a key that may change its Space). A Skill one cannot see is 404, as an unknown id.
// A command or query declares them with `@Requires(SkillResolver, …)`; its handler then reads, asking nothing.
import { Inject, Injectable } from '@nestjs/common';
import { agentToUse, AGENTS, manageDenied, type AgentView } from '#agents';
import { ask, permits, type Ask, type PrincipalOrCaller, type SkillPlace } from '#access';
import { EVENT_STORE, type EventStore } from '#event-store';
import { NotFoundError, ValidationError } from '#kernel';
import { findAll, READ_STORE, type ReadStore } from '#read-store';
import { SPACES, type SpaceView } from '#spaces';
import { SkillNotFoundError } from './skill.decider.js';
import type { SkillPlacement } from './skill.events.js';
import { placementOf } from './skill-names.js';
import { SkillReader } from './skill.reader.js';
import { skillAsOf } from './skills-as-of.js';
import type { SkillView } from './skills.read-model.js';

/** The 403 of a principal that is no admin asking to curate the marketplace. */
export const curateAsk = (message: string): Ask =>
  ask('skill.marketplace.curate', null, message, { code: 'marketplace_admin_only' });

@Injectable()
export class SkillResolver {
  constructor(
    private readonly reader: SkillReader,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
  ) {}

  /**
   * `skill.read` on the place: DEFAULT Skills everyone; a Space's Skills whoever sees the Space (404 otherwise, as for
   * an unknown Space), an Agent's whoever may use the Agent (404 when there is none, 403 `agent_access_denied`).
   */
  async see(placement: SkillPlacement, who: PrincipalOrCaller): Promise<readonly Ask[]> {
    if (placement.kind === 'global')
      // DEFAULT Skills: everyone (the policy says so; asked all the same, so a rule change reaches here).
      return [ask('skill.read', { kind: 'global' }, 'the DEFAULT Skills are not readable here')];
    if (placement.kind === 'space') {
      const { space, place } = await this.spacePlace(placement.spaceId, who);
      return [ask('skill.read', place, () => new NotFoundError('Space', space.id))];
    }
    return (await agentToUse(this.readStore, placement.agentId)).asks;
  }

  /**
   * `skill.change` on the place: DEFAULT Skills admins only (403 `skill_change_denied`); a Space's, whoever may change
   * the Space (404 when unseen, 403 `space_change_denied`); an Agent's, whoever manages it (404, 403
   * `agent_access_denied`, 403 `space_change_denied`). A Space or an Agent that does not exist is 404, to admins too.
   */
  async change(placement: SkillPlacement, who: PrincipalOrCaller): Promise<readonly Ask[]> {
    if (placement.kind === 'global')
      return [ask('skill.change', { kind: 'global' }, 'only admins change the Skills every Agent has')];
    if (placement.kind === 'space') {
      const { space, place } = await this.spacePlace(placement.spaceId, who);
      return [
        ask('skill.read', place, () => new NotFoundError('Space', space.id)),
        ask('skill.change', place, `you may not change Space '${space.id}'`),
      ];
    }
    const { agent, space, asks } = await agentToUse(this.readStore, placement.agentId);
    return [...asks, ask('skill.change', { kind: 'agent', agent, space }, () => manageDenied(agent))];
  }

  /** The Skills a list names: an Agent's (using it), a Space's (seeing it), else the DEFAULT ones. */
  async list(
    query: { readonly agentId?: string | undefined; readonly spaceId?: string | undefined },
    who: PrincipalOrCaller,
  ): Promise<readonly Ask[]> {
    if (query.agentId !== undefined && query.spaceId !== undefined)
      throw new ValidationError('invalid_placement', 'name at most one of spaceId and agentId', 'spaceId');
    if (query.agentId !== undefined) return (await agentToUse(this.readStore, query.agentId)).asks;
    return this.see(
      query.spaceId !== undefined ? { kind: 'space', spaceId: query.spaceId } : { kind: 'global' },
      who,
    );
  }

  /** The Skills an Agent had at a time: one Agent only (400 otherwise), used now. */
  async listAsOf(query: {
    readonly agentId?: string | undefined;
    readonly spaceId?: string | undefined;
  }): Promise<readonly Ask[]> {
    if (query.agentId === undefined || query.spaceId !== undefined)
      throw new ValidationError(
        'as_of_needs_agent',
        'asOf lists the Skills of one Agent: name agentId only',
        'asOf',
      );
    return (await agentToUse(this.readStore, query.agentId)).asks;
  }

  /** Seeing the Skill: 404 when there is none or the principal does not see its place. */
  async skill(skillId: string, who: PrincipalOrCaller): Promise<readonly Ask[]> {
    const skill = await this.reader.skill(skillId);
    if (!skill) throw new SkillNotFoundError(skillId);
    return this.seeing(skill, who);
  }

  /**
   * Curating the marketplace (admins: 403 `marketplace_admin_only`), then seeing the Skill. A Skill that does not exist
   * asks nothing more: the handler answers its 404, after a principal that may not curate got its 403.
   */
  async curate(skillId: string, message: string, who: PrincipalOrCaller): Promise<readonly Ask[]> {
    const skill = await this.reader.skill(skillId);
    return [curateAsk(message), ...(skill ? await this.seeing(skill, who) : [])];
  }

  /** Seeing the Skill, then changing it where it sits. */
  async changeSkill(skillId: string, who: PrincipalOrCaller): Promise<readonly Ask[]> {
    const skill = await this.reader.skill(skillId);
    if (!skill) throw new SkillNotFoundError(skillId);
    return [...(await this.seeing(skill, who)), ...(await this.change(placementOf(skill), who))];
  }

  /** Seeing the Skill as it was at `asOf`, in the place it had then: 404 when it did not exist then. */
  async skillAsOf(skillId: string, asOf: Date, who: PrincipalOrCaller): Promise<readonly Ask[]> {
    const found = await skillAsOf(this.eventStore, skillId, asOf);
    if (!found) throw new SkillNotFoundError(skillId);
    return this.seeing(found.skill, who);
  }

  /** `see` on the Skill's place, every refusal (its place gone too) answered as the Skill's 404. */
  private async seeing(skill: SkillView, who: PrincipalOrCaller): Promise<readonly Ask[]> {
    const notFound = () => new SkillNotFoundError(skill.id);
    const asks = await this.see(placementOf(skill), who).catch(() => {
      throw notFound();
    });
    return asks.map((asked) => ({ ...asked, denied: notFound }));
  }

  /**
   * A Space as the policy's Skill place: whether it holds an Agent the principal may use is read only if needed (what
   * the policy reads of the place depends on it; nothing is refused here).
   */
  private async spacePlace(
    spaceId: string,
    who: PrincipalOrCaller,
  ): Promise<{ space: SpaceView; place: Extract<SkillPlace, { kind: 'space' }> }> {
    const space = await this.readStore.reader<SpaceView>(SPACES).get(spaceId);
    if (!space) throw new NotFoundError('Space', spaceId);
    if (permits(who, 'skill.read', { kind: 'space', space }))
      return { space, place: { kind: 'space', space } };
    const agents = await findAll<AgentView>(this.readStore, AGENTS, { spaceId });
    const holdsReachableAgent = agents.some((agent) => permits(who, 'agent.use', { ...agent, space }));
    return { space, place: { kind: 'space', space, holdsReachableAgent } };
  }
}
