// Process manager: a deleted message erases the code runs of its turn (their keys, their files), a deleted
// conversation erases every run and its sandbox goes with it (its files too); a change to the Skills an Agent has
// (a Skill created, published, rolled back or deleted) rebuilds the /skills files of that Agent's active sandboxes,
// recorded with the cause in their streams. It keeps the active sandboxes per Agent in its own checkpointed state, so
// a crash mid-rebuild resumes from the log. The active sandboxes are one document per sandbox (`childIndex`: Agent →
// conversation), so a thousand of them cost the same per write as one.
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { ConversationEvent } from '#conversations';
import type { EventEnvelope } from '#kernel';
import {
  causedBy,
  childIndex,
  defineProcess,
  type EventHandlers,
  type ProjectionContext,
} from '#eventsourcing';
import type { PlatformPrincipal } from '#access';
import type { WriteOp } from '#read-store';
import type { SkillEvent } from '#skills';
import { DestroySandbox } from './commands/destroy-sandbox/destroy-sandbox.command.js';
import { EraseCodeRuns } from './commands/erase-code-runs/erase-code-runs.command.js';
import { RebuildSandboxSkills } from './commands/rebuild-sandbox-skills/rebuild-sandbox-skills.command.js';
import type { SandboxEvent } from './sandbox.events.js';

/** The active sandboxes: Agent (owner) → conversation (child), one document each. */
const ACTIVE = childIndex('pm_sandbox_lifecycle_active');
export const SANDBOX_LIFECYCLE_PROCESS = 'sandbox-lifecycle-process';
const PLATFORM: PlatformPrincipal = { kind: 'platform', process: SANDBOX_LIFECYCLE_PROCESS };

type Read = Extract<
  SandboxEvent | ConversationEvent | SkillEvent,
  {
    type:
      | 'SandboxCreated'
      | 'SandboxDestroyed'
      | 'MessageDeleted'
      | 'ConversationDeleted'
      | 'SkillCreated'
      | 'SkillVersionPublished'
      | 'SkillActiveVersionSet'
      | 'SkillDeleted';
  }
>;

@Injectable()
export class SandboxLifecycleProcess extends defineProcess<Read>({
  name: SANDBOX_LIFECYCLE_PROCESS,
  // 2: the active sandboxes as one document each (was one document holding them all).
  version: 2,
  collections: [ACTIVE.collection],
}) {
  constructor(private readonly bus: CommandBus) {
    super();
  }

  readonly on: EventHandlers<Read> = {
    SandboxCreated: async ({ data }, context) => [
      ...(await ACTIVE.remove(context, data.conversationId)),
      ...(await ACTIVE.add(context, data.agentId, data.conversationId)),
    ],
    SandboxDestroyed: async ({ data }, context) => ACTIVE.remove(context, data.conversationId),
    MessageDeleted: async (event) => {
      const { conversationId, messageId } = event.data;
      await this.bus.execute(
        new EraseCodeRuns(conversationId, messageId, causedBy(event, conversationId), PLATFORM),
      );
      return [];
    },
    ConversationDeleted: async (event, context) => {
      const { conversationId } = event.data;
      await this.bus.execute(
        new EraseCodeRuns(conversationId, null, causedBy(event, conversationId), PLATFORM),
      );
      await ACTIVE.each(context, { childId: conversationId }, async (member) => {
        await this.bus.execute(
          new DestroySandbox(
            member.childId,
            'conversation_deleted',
            causedBy(event, member.childId),
            PLATFORM,
          ),
        );
      });
      return [];
    },
    SkillCreated: (event, context) => this.rebuild(event, context),
    SkillVersionPublished: (event, context) => this.rebuild(event, context),
    SkillActiveVersionSet: (event, context) => this.rebuild(event, context),
    SkillDeleted: (event, context) => this.rebuild(event, context),
  };

  /** Every active sandbox's /skills is rebuilt: rebuilding one the change does not reach writes the same files. */
  private async rebuild(cause: EventEnvelope, context: ProjectionContext): Promise<WriteOp[]> {
    await ACTIVE.each(context, {}, async (member) => {
      await this.bus.execute(
        new RebuildSandboxSkills(
          member.childId,
          member.ownerId,
          cause.position,
          causedBy(cause, member.childId),
          PLATFORM,
        ),
      );
    });
    return [];
  }
}
