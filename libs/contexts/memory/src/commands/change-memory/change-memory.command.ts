// Editing a memory (a new version; the old ones stay as its history) or rolling it back to an earlier version's
// text. An edit is screened like every new text.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import type { CallScope } from '#model-gateway';
import { MemoryResolver, MemoryReads } from '../../memory-resolver.js';
import { MemoryScreening } from '../../memory-screening.js';
import { MemoryRepository } from '../../memory.repository.js';
import { API_SOURCE, MemoryFlaggedError } from '../add-memory/add-memory.command.js';

@Requires(MemoryResolver, (memory, { agentId, memoryId }: ChangeMemory) =>
  memory.memory(agentId, memoryId, 'memory.personal.write'),
)
export class ChangeMemory extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    readonly memoryId: string,
    readonly change: { readonly text: string } | { readonly rollBackTo: number },
    /** Whose usage the screening's model call is (the request's key and user). */
    readonly usage: CallScope,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(ChangeMemory)
export class ChangeMemoryHandler implements ICommandHandler<ChangeMemory> {
  constructor(
    private readonly reads: MemoryReads,
    private readonly memories: MemoryRepository,
    private readonly screening: MemoryScreening,
  ) {}

  async execute({
    agentId,
    memoryId,
    change,
    usage,
    context,
    principal,
  }: ChangeMemory): Promise<WriteResult> {
    const agent = await this.reads.agent(agentId);
    const view = await this.reads.memory(agent, memoryId);
    const userId = this.reads.user(principal);
    if (!('text' in change)) {
      const position = await this.memories.rollBack(
        {
          agentId: agent.id,
          owner: view.owner,
          memoryId,
          toVersion: change.rollBackTo,
          oldText: view.versions.find((version) => version.version === change.rollBackTo)?.text ?? null,
          rolledBackBy: userId,
        },
        context,
      );
      return { id: memoryId, position };
    }
    const verdict = await this.screening.screen(
      change.text,
      { ...usage, agentId: agent.id },
      AbortSignal.timeout(60_000),
    );
    if (verdict.flagged) {
      await this.memories.flag(
        {
          agentId: agent.id,
          owner: view.owner,
          reasons: verdict.reasons,
          source: API_SOURCE,
          flaggedBy: userId,
        },
        context,
      );
      throw new MemoryFlaggedError();
    }
    const position = await this.memories.revise(
      {
        agentId: agent.id,
        owner: view.owner,
        memoryId,
        text: change.text,
        source: API_SOURCE,
        revisedBy: userId,
        reason: 'edited',
      },
      context,
    );
    return { id: memoryId, position };
  }
}
