// Process manager: a deleted message erases the code runs of its turn (their keys, their files), a deleted
// conversation erases every run and its sandbox goes with it (its files too); a change to the Skills an Agent has
// (a Skill created, published, rolled back or deleted) rebuilds the /skills files of that Agent's active sandboxes,
// recorded with the cause in their streams. It keeps the active sandboxes per Agent in its own checkpointed state, so
// a crash mid-rebuild resumes from the log. The active sandboxes are one document per sandbox (`childIndex`: Agent →
// conversation), so a thousand of them cost the same per write as one.
import { Inject, Injectable } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { ConversationEvent } from '#conversations';
import type { EventEnvelope } from '#kernel';
import {
  causedBy,
  childIndex,
  defineProcess,
  type CommandContext,
  type EventHandlers,
  type ProjectionContext,
} from '#eventsourcing';
import { AGENTS, type AgentView } from '#agents';
import { ReadYourWritesBus } from '#eventsourcing';
import { READ_STORE, type ReadStore, type WriteOp } from '#read-store';
import { SKILL_VERSIONS_READ_MODEL, SKILLS_READ_MODEL, type SkillEvent } from '#skills';
import { CodeRuns } from './code-runs.js';
import type { SandboxEvent } from './sandbox.events.js';

/**
 * Rebuilds one conversation's sandbox, destroys it (a deleted conversation), or erases runs: those of the turn of
 * `messageId`, or every run when it is null.
 */
export class MaintainSandbox extends Command<void> {
  constructor(
    readonly conversationId: string,
    readonly agentId: string,
    readonly action: 'rebuild' | 'destroy' | 'erase',
    readonly context: CommandContext,
    readonly messageId: string | null = null,
    /** The log position of the cause: a rebuild reads the Skills as of (at least) there. */
    readonly position: number | null = null,
  ) {
    super();
  }
}

@CommandHandler(MaintainSandbox)
export class MaintainSandboxHandler implements ICommandHandler<MaintainSandbox> {
  constructor(
    private readonly runs: CodeRuns,
    private readonly sender: ReadYourWritesBus,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({
    conversationId,
    agentId,
    action,
    context,
    messageId,
    position,
  }: MaintainSandbox): Promise<void> {
    if (action === 'erase') return this.runs.erase(conversationId, messageId, context);
    if (action === 'destroy') return this.runs.destroy(conversationId, 'conversation_deleted', context);
    // The Skills read models are projected beside this process: without the wait, the rebuild a SkillCreated causes
    // can read the Skills before that Skill (or its published version) is in them, and place the old files.
    if (position !== null) await this.sender.settle(position, [SKILLS_READ_MODEL, SKILL_VERSIONS_READ_MODEL]);
    const agent = await this.readStore.reader<AgentView>(AGENTS).get(agentId);
    if (!agent) return;
    const { files, skills } = await this.runs.skillFiles(agent);
    await this.runs.sandbox
      .replaceSkills(this.runs.sandboxIdOf(conversationId), files)
      .catch(() => undefined);
    await this.runs.record(
      { type: 'RecordSkillsReplaced', data: { conversationId, skills, reason: 'skills_changed' } },
      context,
    );
  }
}

/** The active sandboxes: Agent (owner) → conversation (child), one document each. */
const ACTIVE = childIndex('pm_sandbox_lifecycle_active');
export const SANDBOX_LIFECYCLE_PROCESS = 'sandbox-lifecycle-process';

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
        new MaintainSandbox(conversationId, '', 'erase', causedBy(event, conversationId), messageId),
      );
      return [];
    },
    ConversationDeleted: async (event, context) => {
      const { conversationId } = event.data;
      await this.bus.execute(
        new MaintainSandbox(conversationId, '', 'erase', causedBy(event, conversationId)),
      );
      await ACTIVE.each(context, { childId: conversationId }, (member) =>
        this.bus.execute(
          new MaintainSandbox(member.childId, member.ownerId, 'destroy', causedBy(event, member.childId)),
        ),
      );
      return [];
    },
    SkillCreated: (event, context) => this.rebuild(event, context),
    SkillVersionPublished: (event, context) => this.rebuild(event, context),
    SkillActiveVersionSet: (event, context) => this.rebuild(event, context),
    SkillDeleted: (event, context) => this.rebuild(event, context),
  };

  /** Every active sandbox's /skills is rebuilt: rebuilding one the change does not reach writes the same files. */
  private async rebuild(cause: EventEnvelope, context: ProjectionContext): Promise<WriteOp[]> {
    await ACTIVE.each(context, {}, (member) =>
      this.bus.execute(
        new MaintainSandbox(
          member.childId,
          member.ownerId,
          'rebuild',
          causedBy(cause, member.childId),
          null,
          cause.position,
        ),
      ),
    );
    return [];
  }
}
