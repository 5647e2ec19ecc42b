// Where a Skill sits, and the name rule (spec: "unique within the place where the Skill is available"): a Space Skill
// and an Agent Skill of an Agent in that Space cannot share a name, nor two Skills of one place, nor any Skill a
// DEFAULT one's (every Agent has those), and an Agent with a Skill named as one of a Space's does not move into it;
// duplicates are 409 `skill_name_taken`. Who may see and change which Skill is the gate's (./skill-resolver.ts).
import { Inject, Injectable } from '@nestjs/common';
import { AGENTS, type AgentView } from '#agents';
import type { Principal } from '#access';
import { ConflictError, ValidationError } from '#kernel';
import { findAll, READ_STORE, type Filter, type ReadStore } from '#read-store';
import type { SkillPlacement } from './skill.events.js';
import { SkillReader } from './skill.reader.js';
import type { SkillView } from './skills.read-model.js';

export const placementOf = (skill: SkillView): SkillPlacement =>
  skill.placement === 'space'
    ? { kind: 'space', spaceId: skill.spaceId! }
    : skill.placement === 'agent'
      ? { kind: 'agent', agentId: skill.agentId! }
      : { kind: 'global' };

/** The place a request names: exactly one of spaceId and agentId. */
export function placementFrom(target: {
  spaceId?: string | undefined;
  agentId?: string | undefined;
}): SkillPlacement {
  if ((target.spaceId === undefined) === (target.agentId === undefined))
    throw new ValidationError('invalid_placement', 'name exactly one of spaceId and agentId', 'spaceId');
  return target.spaceId !== undefined
    ? { kind: 'space', spaceId: target.spaceId }
    : { kind: 'agent', agentId: target.agentId! };
}

/** The user a principal acts for (a Skill's creator), or null for one that is no user's (the platform). */
export const userOf = (principal: Principal): string | null =>
  principal.kind === 'apiKey' || principal.kind === 'session' ? principal.userId : null;

@Injectable()
export class SkillNames {
  constructor(
    private readonly reader: SkillReader,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

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
