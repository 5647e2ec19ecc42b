// Process manager: deleting an Agent deletes the Skills placed on it, and deleting a Space the Skills placed on the
// Space (its Agents' own Skills follow through their AgentDeleted). It keeps which Skills each owner holds in its own
// checkpointed state; a Skill created on an owner already gone is deleted as soon as it appears. Commands carry ids
// derived from their cause, so a replay appends nothing.
import { Injectable } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { AgentEvent } from '#agents';
import type { EventEnvelope } from '#kernel';
import {
  causedBy,
  eventHandlers,
  type CommandContext,
  type ProjectionContext,
  type Projector,
} from '#eventsourcing';
import type { WriteOp } from '#read-store';
import type { SpaceEvent } from '#spaces';
import type { SkillEvent } from './skill.events.js';
import { SkillStore } from './skill-store.js';

interface OwnerSkills {
  readonly id: string;
  readonly skillIds: readonly string[];
  readonly deleted: boolean;
}

const OWNER_SKILLS = 'pm_skill_owners';

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

@Injectable()
export class SkillOwnerDeletionProcess implements Projector {
  readonly name = 'skill-owner-deletion-process';
  readonly version = 1;
  readonly collections = [{ name: OWNER_SKILLS }];

  constructor(private readonly bus: CommandBus) {}

  private readonly handlers = eventHandlers<Read>({
    SkillCreated: async (event, context) => {
      const placement = event.data.placement;
      if (placement.kind === 'global') return [];
      const owner = await this.owner(
        context,
        placement.kind === 'space' ? placement.spaceId : placement.agentId,
      );
      if (owner.deleted) {
        await this.delete(event.data.skillId, event);
        return [];
      }
      return [
        this.save({
          ...owner,
          skillIds: [...owner.skillIds.filter((id) => id !== event.data.skillId), event.data.skillId],
        }),
      ];
    },
    AgentDeleted: (event, context) => this.gone(event.data.agentId, event, context),
    SpaceDeleted: (event, context) => this.gone(event.data.spaceId, event, context),
  });
  readonly eventTypes = this.handlers.eventTypes;

  project(event: EventEnvelope, context: ProjectionContext) {
    return this.handlers.project(event, context);
  }

  private async gone(ownerId: string, cause: EventEnvelope, context: ProjectionContext): Promise<WriteOp[]> {
    const owner = await this.owner(context, ownerId);
    for (const skillId of owner.skillIds) await this.delete(skillId, cause);
    return [this.save({ id: ownerId, skillIds: [], deleted: true })];
  }

  private async owner(context: ProjectionContext, id: string): Promise<OwnerSkills> {
    return (await context.get<OwnerSkills>(OWNER_SKILLS, id)) ?? { id, skillIds: [], deleted: false };
  }

  private save(doc: OwnerSkills): WriteOp {
    return { kind: 'upsert', collection: OWNER_SKILLS, doc: { ...doc } };
  }

  private delete(skillId: string, cause: EventEnvelope): Promise<void> {
    return this.bus.execute(new DeleteOwnedSkill(skillId, causedBy(cause, skillId)));
  }
}
