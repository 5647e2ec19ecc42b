// Process manager: a deleted message erases the code runs of its turn (their keys, their files), a deleted
// conversation erases every run and its sandbox goes with it (its files too); a change to the Skills an Agent has
// (a Skill created, published, rolled back or deleted) rebuilds the /skills files of that Agent's active sandboxes,
// recorded with the cause in their streams. It keeps the active sandboxes per Agent in its own checkpointed state, so
// a crash mid-rebuild resumes from the log.
import { Injectable } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { ConversationEvent } from '#conversations';
import type { EventEnvelope } from '#kernel';
import {
  causedBy,
  eventHandlers,
  type CommandContext,
  type ProjectionContext,
  type Projector,
} from '#eventsourcing';
import { AGENTS, type AgentView } from '#agents';
import { Inject } from '@nestjs/common';
import { READ_STORE, type ReadStore, type WriteOp } from '#read-store';
import type { SkillEvent } from '#skills';
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
  ) {
    super();
  }
}

@CommandHandler(MaintainSandbox)
export class MaintainSandboxHandler implements ICommandHandler<MaintainSandbox> {
  constructor(
    private readonly runs: CodeRuns,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ conversationId, agentId, action, context, messageId }: MaintainSandbox): Promise<void> {
    if (action === 'erase') return this.runs.erase(conversationId, messageId, context);
    if (action === 'destroy') return this.runs.destroy(conversationId, 'conversation_deleted', context);
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

interface ActiveSandboxes {
  readonly id: string;
  readonly entries: readonly { readonly conversationId: string; readonly agentId: string }[];
}

const ACTIVE = 'pm_active_sandboxes';
export const SANDBOX_LIFECYCLE_PROCESS = 'sandbox-lifecycle-process';
const ALL = 'all';

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
export class SandboxLifecycleProcess implements Projector {
  readonly name = SANDBOX_LIFECYCLE_PROCESS;
  readonly version = 1;
  readonly collections = [{ name: ACTIVE }];

  constructor(private readonly bus: CommandBus) {}

  private readonly handlers = eventHandlers<Read>({
    SandboxCreated: async ({ data }, context) => {
      const active = await this.active(context);
      return [
        this.save([
          ...active.entries.filter((entry) => entry.conversationId !== data.conversationId),
          { conversationId: data.conversationId, agentId: data.agentId },
        ]),
      ];
    },
    SandboxDestroyed: async ({ data }, context) => {
      const active = await this.active(context);
      return [this.save(active.entries.filter((entry) => entry.conversationId !== data.conversationId))];
    },
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
      const entry = (await this.active(context)).entries.find(
        (e) => e.conversationId === event.data.conversationId,
      );
      if (entry)
        await this.bus.execute(
          new MaintainSandbox(
            entry.conversationId,
            entry.agentId,
            'destroy',
            causedBy(event, entry.conversationId),
          ),
        );
      return [];
    },
    SkillCreated: (event, context) => this.rebuild(event, context),
    SkillVersionPublished: (event, context) => this.rebuild(event, context),
    SkillActiveVersionSet: (event, context) => this.rebuild(event, context),
    SkillDeleted: (event, context) => this.rebuild(event, context),
  });
  readonly eventTypes = this.handlers.eventTypes;

  project(event: EventEnvelope, context: ProjectionContext) {
    return this.handlers.project(event, context);
  }

  /** Every active sandbox's /skills is rebuilt: rebuilding one the change does not reach writes the same files. */
  private async rebuild(cause: EventEnvelope, context: ProjectionContext): Promise<WriteOp[]> {
    for (const entry of (await this.active(context)).entries)
      await this.bus.execute(
        new MaintainSandbox(
          entry.conversationId,
          entry.agentId,
          'rebuild',
          causedBy(cause, entry.conversationId),
        ),
      );
    return [];
  }

  private async active(context: ProjectionContext): Promise<ActiveSandboxes> {
    return (await context.get<ActiveSandboxes>(ACTIVE, ALL)) ?? { id: ALL, entries: [] };
  }

  private save(entries: ActiveSandboxes['entries']): WriteOp {
    return { kind: 'upsert', collection: ACTIVE, doc: { id: ALL, entries: [...entries] } };
  }
}
