// Rebuilding the /skills files of a conversation's active sandbox (sent by SandboxLifecycleProcess when the Skills an
// Agent has change), recorded with the Skills it now holds. The platform acts on a fact of the log
// (`platform.step`).
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AGENTS, type AgentView } from '#agents';
import { ReadYourWritesBus, type CommandContext, type WriteResult } from '#eventsourcing';
import { ask, Requires, type PlatformPrincipal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { SKILL_VERSIONS_READ_MODEL, SKILLS_READ_MODEL } from '#skills';
import { CodeRuns } from '../../code-runs.js';
import { SandboxRepository } from '../../sandbox.repository.js';

@Requires(() => ask('platform.step', null, "a sandbox's Skills are rebuilt by the platform"))
export class RebuildSandboxSkills extends Command<WriteResult> {
  constructor(
    readonly conversationId: string,
    readonly agentId: string,
    /** The log position of the cause: the rebuild reads the Skills as of (at least) there. */
    readonly position: number,
    readonly context: CommandContext,
    readonly principal: PlatformPrincipal,
  ) {
    super();
  }
}

@CommandHandler(RebuildSandboxSkills)
export class RebuildSandboxSkillsHandler implements ICommandHandler<RebuildSandboxSkills> {
  constructor(
    private readonly runs: CodeRuns,
    private readonly sandboxes: SandboxRepository,
    private readonly writes: ReadYourWritesBus,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  /** The rebuild running per conversation: one at a time, each reading the Skills when its turn comes. */
  private readonly running = new Map<string, Promise<unknown>>();

  /**
   * Rebuilds of one conversation run one after another: two at once (an upload appends the Skill, then its published
   * version: two causes) interleaved their removals and writes of /skills, leaving it empty while the later rebuild
   * recorded the Skill. Run in turn, the last one reads the newest Skills and its files are what stays.
   */
  execute(command: RebuildSandboxSkills): Promise<WriteResult> {
    const previous = this.running.get(command.conversationId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.rebuild(command));
    this.running.set(command.conversationId, next);
    void next
      .catch(() => undefined)
      .finally(() => {
        if (this.running.get(command.conversationId) === next) this.running.delete(command.conversationId);
      });
    return next;
  }

  private async rebuild({
    conversationId,
    agentId,
    position,
    context,
  }: RebuildSandboxSkills): Promise<WriteResult> {
    // The Skills read models are projected beside the process that sends this: without the wait, the rebuild a
    // SkillCreated causes can read the Skills before that Skill (or its published version) is in them.
    await this.writes.settle(position, [SKILLS_READ_MODEL, SKILL_VERSIONS_READ_MODEL]);
    const agent = await this.readStore.reader<AgentView>(AGENTS).get(agentId);
    if (!agent) return { id: conversationId, position: 0 };
    const { files, skills } = await this.runs.skillFiles(agent);
    await this.runs.sandbox
      .replaceSkills(this.runs.sandboxIdOf(conversationId), files)
      .catch(() => undefined);
    return {
      id: conversationId,
      position: await this.sandboxes.decide(
        { type: 'RecordSkillsReplaced', data: { conversationId, skills, reason: 'skills_changed' } },
        context,
      ),
    };
  }
}
