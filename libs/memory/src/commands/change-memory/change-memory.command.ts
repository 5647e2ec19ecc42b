// Editing a memory (a new version; the old ones stay as its history) or rolling it back to an earlier version's
// text. An edit is screened like every new text.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { callerScope } from '#model-gateway';
import { commandContext, type Caller } from '#identity';
import { MemoryAccess } from '../../memory-access.js';
import { toMemoryDto } from '../../memory-dto.js';
import type { MemoryDto } from '../../memory.schemas.js';
import { MemoryScreening } from '../../memory-screening.js';
import { MemoryStore } from '../../memory-store.js';
import { API_SOURCE, MemoryFlaggedError } from '../add-memory/add-memory.command.js';

export class ChangeMemory extends Command<z.output<typeof MemoryDto>> {
  constructor(
    readonly agentId: string,
    readonly memoryId: string,
    readonly change: { readonly text: string } | { readonly rollBackTo: number },
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(ChangeMemory)
export class ChangeMemoryHandler implements ICommandHandler<ChangeMemory> {
  constructor(
    private readonly access: MemoryAccess,
    private readonly store: MemoryStore,
    private readonly screening: MemoryScreening,
  ) {}

  async execute({ agentId, memoryId, change, caller }: ChangeMemory) {
    const agent = await this.access.agent(agentId, caller);
    const view = await this.access.memory(agent, memoryId, caller);
    await this.access.requireWritable(agent, view.owner, caller);
    const context = commandContext(caller);
    let position: number;
    if ('text' in change) {
      const verdict = await this.screening.screen(
        change.text,
        callerScope(caller, 'core', agent.id),
        AbortSignal.timeout(60_000),
      );
      if (verdict.flagged) {
        await this.store.flag(
          {
            agentId: agent.id,
            owner: view.owner,
            reasons: verdict.reasons,
            source: API_SOURCE,
            flaggedBy: caller.userId,
          },
          context,
        );
        throw new MemoryFlaggedError();
      }
      position = await this.store.revise(
        {
          agentId: agent.id,
          owner: view.owner,
          memoryId,
          text: change.text,
          source: API_SOURCE,
          revisedBy: caller.userId,
          reason: 'edited',
        },
        context,
      );
    } else position = await this.store.rollBack(view, change.rollBackTo, caller.userId, context);
    await this.store.settle(position);
    const [memory] = await this.store.open([(await this.store.view(memoryId))!]);
    return toMemoryDto(memory!);
  }
}
