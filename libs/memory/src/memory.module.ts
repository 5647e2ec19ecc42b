// The Memory bounded context: durable per-Agent, per-user facts (personal and shared buckets with caps, screening
// before storage, shared-memory proposals, versions, rollback and reach) as command and query slices, and the
// context provider that recalls memories into conversation turns and extracts new ones after them (added to the
// conversations' list when this module starts). Its process managers run with the projectors (apps/projectors.ts).
import { Module, type OnModuleInit } from '@nestjs/common';
import { ContextProviders, ConversationsModule } from '#conversations';
import { ModelGatewayModule } from '#model-gateway';
import { ClearDeletedAgentBucketHandler } from './agent-memories-deletion.process.js';
import { CompleteProposalHandler } from './memory-proposal.process.js';
import { AddMemoryController } from './commands/add-memory/add-memory.controller.js';
import { AddMemoryHandler } from './commands/add-memory/add-memory.command.js';
import { AnswerProposalController } from './commands/answer-proposal/answer-proposal.controller.js';
import { AnswerProposalHandler } from './commands/answer-proposal/answer-proposal.command.js';
import { ChangeMemoryController } from './commands/change-memory/change-memory.controller.js';
import { ChangeMemoryHandler } from './commands/change-memory/change-memory.command.js';
import { ClearMemoriesController } from './commands/clear-memories/clear-memories.controller.js';
import { ClearMemoriesHandler } from './commands/clear-memories/clear-memories.command.js';
import { DeleteMemoryController } from './commands/delete-memory/delete-memory.controller.js';
import { DeleteMemoryHandler } from './commands/delete-memory/delete-memory.command.js';
import { MemoryAccess } from './memory-access.js';
import { MemoryEmbeddings } from './memory-embeddings.js';
import { MemoryScreening } from './memory-screening.js';
import { MemoryStore } from './memory-store.js';
import { MemoryContextProvider } from './memory.provider.js';
import { GetMemoryHistoryController } from './queries/get-memory-history/get-memory-history.controller.js';
import { GetMemoryHistoryHandler } from './queries/get-memory-history/get-memory-history.query.js';
import { ListMemoriesController } from './queries/list-memories/list-memories.controller.js';
import { ListMemoriesHandler } from './queries/list-memories/list-memories.query.js';
import { ListMemoriesAsOfHandler } from './queries/list-memories/list-memories-as-of.query.js';
import { ListProposalsController } from './queries/list-proposals/list-proposals.controller.js';
import { ListProposalsHandler } from './queries/list-proposals/list-proposals.query.js';

export const MEMORY_CONTROLLERS = [
  ListMemoriesController,
  AddMemoryController,
  ChangeMemoryController,
  DeleteMemoryController,
  GetMemoryHistoryController,
  ClearMemoriesController,
  ListProposalsController,
  AnswerProposalController,
];

export const MEMORY_COMMAND_HANDLERS = [
  AddMemoryHandler,
  ChangeMemoryHandler,
  DeleteMemoryHandler,
  ClearMemoriesHandler,
  AnswerProposalHandler,
  ClearDeletedAgentBucketHandler,
  CompleteProposalHandler,
];

export const MEMORY_QUERY_HANDLERS = [
  ListMemoriesHandler,
  GetMemoryHistoryHandler,
  ListProposalsHandler,
  ListMemoriesAsOfHandler,
];

@Module({
  imports: [ModelGatewayModule, ConversationsModule],
  controllers: MEMORY_CONTROLLERS,
  providers: [
    ...MEMORY_COMMAND_HANDLERS,
    ...MEMORY_QUERY_HANDLERS,
    MemoryStore,
    MemoryAccess,
    MemoryEmbeddings,
    MemoryScreening,
    MemoryContextProvider,
  ],
})
export class MemoryModule implements OnModuleInit {
  constructor(
    private readonly contextProviders: ContextProviders,
    private readonly memory: MemoryContextProvider,
  ) {}

  onModuleInit(): void {
    this.contextProviders.add(this.memory);
  }
}
