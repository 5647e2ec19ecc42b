// Process manager: deleting an Agent deletes the Skills placed on it, and deleting a Space the Skills placed on the
// Space (its Agents' own Skills follow through their AgentDeleted). It keeps which Skills each owner holds in its own
// checkpointed state (an owner cascade, one document per Skill); a Skill created on an owner already gone is deleted as soon as it appears. Commands carry ids
// derived from their cause, so a replay appends nothing.
import { Injectable } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { AgentEvent } from '#agents';
import {
  causedBy,
  defineProcess,
  ownerCascade,
  type CommandContext,
  type EventHandlers,
} from '#eventsourcing';
import type { SpaceEvent } from '#spaces';
import type { SkillEvent } from './skill.events.js';
import { SkillStore } from './skill-store.js';

/** The platform deletes a Skill because the Space or Agent it was placed on was deleted. */
export class DeleteOwnedSkill extends Command<void> {
  constructor(
    readonly skillId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(DeleteOwnedSkill)
export class DeleteOwnedSkillHandler implements ICommandHandler<DeleteOwnedSkill> {
  constructor(private readonly store: SkillStore) {}

  async execute({ skillId, context }: DeleteOwnedSkill): Promise<void> {
    const versions = await this.store.versions(skillId);
    const result = await this.store.run({ type: 'DeleteSkill', skillId, reason: 'owner_deleted' }, context);
    if (result.events.length > 0) {
      await this.store.settle(result.position);
      await this.store.purge(versions);
    }
  }
}

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
  name: 'skill-owner-deletion-process',
  version: 2,
  collections: ownerSkills.collections,
}) {
  constructor(private readonly bus: CommandBus) {
    super();
  }

  readonly on: EventHandlers<Read> = ownerSkills.handlers((skill, cause) =>
    this.bus.execute(new DeleteOwnedSkill(skill.id, causedBy(cause, skill.id))),
  );
}
