// Who may see and change which Skill, and the name rule. A global (DEFAULT) Skill is seen by everyone and changed by
// admins; a Space Skill is seen by whoever sees the Space and changed by whoever may change it; an Agent Skill is
// seen by whoever may use the Agent and changed by them when they manage it (an admin, the owner of a personal Agent,
// a key that may change its Space). A Skill one cannot see is 404, as an unknown id.
// Names (spec: "unique within the place where the Skill is available"): a Space Skill and an Agent Skill of an Agent
// in that Space cannot share a name, nor two Skills of one place, nor any Skill a DEFAULT one's (every Agent has
// those), and an Agent with a Skill named as one of a Space's does not move into it; duplicates are 409
// `skill_name_taken`.
import { Inject, Injectable } from '@nestjs/common';
import { accessibleAgent, AGENTS, manageableAgent, type AgentView } from '#agents';
import { authorize, type Caller } from '#identity';
import { ConflictError, ForbiddenError, ValidationError } from '#kernel';
import { findAll, READ_STORE, type Filter, type ReadStore } from '#read-store';
import { changeableSpace, SpaceGrants, visibleSpace } from '#spaces';
import { SkillNotFoundError } from './skill.decider.js';
import type { SkillPlacement } from './skill.events.js';
import type { SkillView } from './skills.read-model.js';
import { SkillStore } from './skill-store.js';

export const placementOf = (skill: SkillView): SkillPlacement =>
  skill.placement === 'space'
    ? { kind: 'space', spaceId: skill.spaceId! }
    : skill.placement === 'agent'
      ? { kind: 'agent', agentId: skill.agentId! }
      : { kind: 'global' };

@Injectable()
export class SkillAccess {
  constructor(
    private readonly store: SkillStore,
    private readonly grants: SpaceGrants,
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

  async canSee(placement: SkillPlacement, caller: Caller): Promise<void> {
    if (placement.kind === 'space')
      await visibleSpace(this.readStore, this.grants, placement.spaceId, caller);
    else if (placement.kind === 'agent') await accessibleAgent(this.readStore, placement.agentId, caller);
  }

  /**
   * The policy's `skill.change` on the place: DEFAULT Skills admins only (403 `skill_change_denied`); a Space's,
   * whoever may change the Space (`changeableSpace`: 404 when unseen, 403 `space_change_denied`); an Agent's, whoever
   * manages it (`manageableAgent`). A Space or an Agent that does not exist is 404, to admins too.
   */
  async canChange(placement: SkillPlacement, caller: Caller): Promise<void> {
    if (placement.kind === 'global') {
      const decision = authorize(caller, 'skill.change', { kind: 'global' });
      if (!decision.allow)
        throw new ForbiddenError(decision.reason, 'only admins change the Skills every Agent has');
      return;
    }
    if (placement.kind === 'space') {
      await changeableSpace(this.readStore, this.grants, placement.spaceId, caller, 'space.content.change');
      return;
    }
    await manageableAgent(this.readStore, placement.agentId, caller);
  }

  /** The Skill, if the caller sees it; 404 otherwise. */
  async skill(skillId: string, caller: Caller): Promise<SkillView> {
    const skill = await this.store.skill(skillId);
    if (!skill) throw new SkillNotFoundError(skillId);
    try {
      await this.canSee(placementOf(skill), caller);
    } catch {
      throw new SkillNotFoundError(skillId);
    }
    return skill;
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
      (await this.store.placed({ ...where, name })).some((skill) => skill.id !== except);
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
    const own = await this.store.placed({ agentId });
    if (own.length === 0) return;
    const clashes = await this.store.placed({ spaceId, name: { $in: own.map((skill) => skill.name) } });
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
