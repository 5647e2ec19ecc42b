// Who may see and change which Skill, and the name rule. A global (DEFAULT) Skill is seen by everyone and changed by
// admins; a Space Skill is seen by whoever sees the Space and changed by whoever may change it; an Agent Skill is
// seen by whoever may use the Agent and changed by them when they manage it (an admin, the owner of a personal Agent,
// a key that may change its Space). A Skill one cannot see is 404, as an unknown id.
// Names (spec: "unique within the place where the Skill is available"): a Space Skill and an Agent Skill of an Agent
// in that Space cannot share a name, nor two Skills of one place, nor any Skill a DEFAULT one's (every Agent has
// those), and an Agent with a Skill named as one of a Space's does not move into it; duplicates are 409
// `skill_name_taken`.
import { Inject, Injectable } from '@nestjs/common';
import { accessibleAgent, AGENTS, manageDenied, type AgentView } from '#agents';
import { permits, demand, type Principal, type SkillPlace } from '#access';
import { ConflictError, NotFoundError, ValidationError } from '#kernel';
import { findAll, READ_STORE, type Filter, type ReadStore } from '#read-store';
import { SPACES, type SpaceView } from '#spaces';
import { SkillNotFoundError } from './skill.decider.js';
import type { SkillPlacement } from './skill.events.js';
import { SkillReader } from './skill.reader.js';
import type { SkillView } from './skills.read-model.js';

export const placementOf = (skill: SkillView): SkillPlacement =>
  skill.placement === 'space'
    ? { kind: 'space', spaceId: skill.spaceId! }
    : skill.placement === 'agent'
      ? { kind: 'agent', agentId: skill.agentId! }
      : { kind: 'global' };

/** The user a principal acts for (a Skill's creator), or null for one that is no user's (the platform). */
export const userOf = (principal: Principal): string | null =>
  principal.kind === 'apiKey' || principal.kind === 'session' ? principal.userId : null;

@Injectable()
export class SkillAccess {
  constructor(
    private readonly reader: SkillReader,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  /** The place a request names: exactly one of spaceId and agentId. */
  placement(target: { spaceId?: string | undefined; agentId?: string | undefined }): SkillPlacement {
    if ((target.spaceId === undefined) === (target.agentId === undefined))
      throw new ValidationError('invalid_placement', 'name exactly one of spaceId and agentId', 'spaceId');
    return target.spaceId !== undefined
      ? { kind: 'space', spaceId: target.spaceId }
      : { kind: 'agent', agentId: target.agentId! };
  }

  /**
   * The policy's `skill.read` on the place: DEFAULT Skills everyone; a Space's Skills whoever sees the Space (404
   * otherwise, as for an unknown Space), an Agent's whoever may use the Agent (404 when there is none, 403
   * `agent_access_denied`).
   */
  async canSee(placement: SkillPlacement, principal: Principal): Promise<void> {
    if (placement.kind === 'global') {
      // DEFAULT Skills: everyone (the policy says so; asked all the same, so a rule change reaches here).
      demand(principal, 'skill.read', { kind: 'global' }, 'the DEFAULT Skills are not readable here');
      return;
    }
    if (placement.kind === 'space') {
      const { space, place } = await this.spacePlace(placement.spaceId, principal);
      if (!permits(principal, 'skill.read', place)) throw new NotFoundError('Space', space.id);
      return;
    }
    await this.agent(placement.agentId, principal);
  }

  /**
   * The policy's `skill.change` on the place: DEFAULT Skills admins only (403 `skill_change_denied`); a Space's,
   * whoever may change the Space (404 when unseen, 403 `space_change_denied`); an Agent's, whoever manages it (404,
   * 403 `agent_access_denied`, 403 `space_change_denied`). A Space or an Agent that does not exist is 404, to admins
   * too.
   */
  async canChange(placement: SkillPlacement, principal: Principal): Promise<void> {
    if (placement.kind === 'global') {
      demand(principal, 'skill.change', { kind: 'global' }, 'only admins change the Skills every Agent has');
      return;
    }
    if (placement.kind === 'space') {
      const { space, place } = await this.spacePlace(placement.spaceId, principal);
      if (!permits(principal, 'skill.read', place)) throw new NotFoundError('Space', space.id);
      demand(principal, 'skill.change', place, `you may not change Space '${space.id}'`);
      return;
    }
    const agent = await this.agent(placement.agentId, principal);
    const space = agent.spaceId ? await this.readStore.reader<SpaceView>(SPACES).get(agent.spaceId) : null;
    if (!permits(principal, 'skill.change', { kind: 'agent', agent, space: space ?? null }))
      throw manageDenied(agent);
  }

  /** The Skill, if the principal sees it; 404 otherwise. */
  async skill(skillId: string, principal: Principal): Promise<SkillView> {
    const skill = await this.reader.skill(skillId);
    if (!skill) throw new SkillNotFoundError(skillId);
    try {
      await this.canSee(placementOf(skill), principal);
    } catch {
      throw new SkillNotFoundError(skillId);
    }
    return skill;
  }

  /** The Agent, if the principal may use it: 404 when there is none, 403 `agent_access_denied`. */
  async agent(agentId: string, principal: Principal): Promise<AgentView> {
    return accessibleAgent(this.readStore, agentId, principal);
  }

  /** A Space as the policy's Skill place: whether it holds an Agent the principal may use is read only if needed. */
  private async spacePlace(
    spaceId: string,
    principal: Principal,
  ): Promise<{ space: SpaceView; place: Extract<SkillPlace, { kind: 'space' }> }> {
    const space = await this.readStore.reader<SpaceView>(SPACES).get(spaceId);
    if (!space) throw new NotFoundError('Space', spaceId);
    if (permits(principal, 'skill.read', { kind: 'space', space }))
      return { space, place: { kind: 'space', space } };
    const agents = await findAll<AgentView>(this.readStore, AGENTS, { spaceId });
    const holdsReachableAgent = agents.some((agent) => permits(principal, 'agent.use', { ...agent, space }));
    return { space, place: { kind: 'space', space, holdsReachableAgent } };
  }

  /**
   * 409 when a Skill this one would sit beside already has the name: one of the same place (a Space and its Agents
   * count as one place), or a DEFAULT one, which every Agent has (an Agent with two `draft-email` could load
   * either). A DEFAULT Skill's name is checked against every place.
   */
  async requireFreeName(
    name: string,
    placement: SkillPlacement,
    except: string | null = null,
  ): Promise<void> {
    // The name is part of every query: only Skills of that name in the place are read.
    const taken = async (where: Filter) =>
      (await this.reader.placed({ ...where, name })).some((skill) => skill.id !== except);
    let clash: boolean;
    if (placement.kind === 'global') clash = await taken({});
    else if (await taken({ placement: 'global' })) clash = true;
    else if (placement.kind === 'space') {
      const agents = await findAll<AgentView>(this.readStore, AGENTS, { spaceId: placement.spaceId });
      clash =
        (await taken({ spaceId: placement.spaceId })) ||
        (agents.length > 0 && (await taken({ agentId: { $in: agents.map((agent) => agent.id) } })));
    } else {
      const agent = await this.readStore.reader<AgentView>(AGENTS).get(placement.agentId);
      clash =
        (await taken({ agentId: placement.agentId })) ||
        (agent?.spaceId ? await taken({ spaceId: agent.spaceId }) : false);
    }
    if (clash)
      throw new ConflictError(
        'skill_name_taken',
        `a Skill named '${name}' is already available here (a Space and its Agents share one set of names, ` +
          'and DEFAULT Skills are available everywhere)',
        'name',
      );
  }

  /**
   * 409 when an Agent moving into a Space has a Skill named as one of that Space's: the move would leave the Agent
   * with two Skills of one name, which creating either Skill there is refused for. The Agents context asks it
   * through AgentMoveChecks.
   */
  async requireFreeNamesInSpace(agentId: string, spaceId: string): Promise<void> {
    const own = await this.reader.placed({ agentId });
    if (own.length === 0) return;
    const clashes = await this.reader.placed({ spaceId, name: { $in: own.map((skill) => skill.name) } });
    if (clashes.length > 0) {
      const names = [...new Set(clashes.map((skill) => `'${skill.name}'`))].toSorted().join(', ');
      throw new ConflictError(
        'skill_name_taken',
        `the Agent has Skills named as Skills of Space '${spaceId}' (${names}): a Space and its Agents share ` +
          'one set of names; rename or delete them first',
        'spaceId',
      );
    }
  }
}
