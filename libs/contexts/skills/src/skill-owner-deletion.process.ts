// Process manager: deleting an Agent deletes the Skills placed on it, and deleting a Space the Skills placed on the
// Space (its Agents' own Skills follow through their AgentDeleted). It keeps which Skills each owner holds in its own
// checkpointed state (an owner cascade, one document per Skill); a Skill created on an owner already gone is deleted as soon as it appears. Commands carry ids
// derived from their cause, so a replay appends nothing.
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { AgentEvent } from '#agents';
import { causedBy, defineProcess, ownerCascade, type EventHandlers } from '#eventsourcing';
import type { PlatformPrincipal } from '#access';
import type { SpaceEvent } from '#spaces';
import { DeleteOwnedSkill } from './commands/delete-owned-skill/delete-owned-skill.command.js';
import type { SkillEvent } from './skill.events.js';

const NAME = 'skill-owner-deletion-process';
const PLATFORM: PlatformPrincipal = { kind: 'platform', process: NAME };

type Read = Extract<
  SkillEvent | AgentEvent | SpaceEvent,
  { type: 'SkillCreated' | 'AgentDeleted' | 'SpaceDeleted' }
>;

const ownerSkills = ownerCascade<Read>({
  state: 'pm_skill_owner',
  on: {
    SkillCreated: ({ data: { skillId, placement } }) =>
      placement.kind === 'global'
        ? null
        : { add: skillId, to: placement.kind === 'space' ? placement.spaceId : placement.agentId },
    AgentDeleted: ({ data }) => ({ ownerGone: data.agentId }),
    SpaceDeleted: ({ data }) => ({ ownerGone: data.spaceId }),
  },
});

@Injectable()
export class SkillOwnerDeletionProcess extends defineProcess<Read>({
  name: NAME,
  version: 2,
  collections: ownerSkills.collections,
}) {
  constructor(private readonly bus: CommandBus) {
    super();
  }

  readonly on: EventHandlers<Read> = ownerSkills.handlers(async (skill, cause) => {
    await this.bus.execute(new DeleteOwnedSkill(skill.id, causedBy(cause, skill.id), PLATFORM));
  });
}
