// The Memory bounded context: durable per-Agent, per-user facts (personal and shared buckets with caps, screening
// before storage, shared-memory proposals, versions, rollback and reach) as command and query slices (a write: its
// the gate asks what its command declares (MemoryResolver), then MemoryRepository seals, decides and appends; a read:
// MemoryReader opens the read models' texts), and the context provider that recalls memories into conversation
// turns and extracts new ones after them, through commands too (added to the conversations' list when this module
// starts). Its process managers run with the projectors (apps/projectors.ts).
import { Module, type OnModuleInit } from '@nestjs/common';
import { ContextProviders, ConversationsModule } from '#conversations';
import { ModelGatewayModule } from '#model-gateway';
import { AddMemoryController } from './commands/add-memory/add-memory.controller.js';
import { AddMemoryHandler } from './commands/add-memory/add-memory.command.js';
import { AnswerProposalController } from './commands/answer-proposal/answer-proposal.controller.js';
import { AnswerProposalHandler } from './commands/answer-proposal/answer-proposal.command.js';
import { ChangeMemoryController } from './commands/change-memory/change-memory.controller.js';
import { ChangeMemoryHandler } from './commands/change-memory/change-memory.command.js';
import { ClearDeletedAgentBucketHandler } from './commands/clear-deleted-agent-bucket/clear-deleted-agent-bucket.command.js';
import { ClearMemoriesController } from './commands/clear-memories/clear-memories.controller.js';
import { ClearMemoriesHandler } from './commands/clear-memories/clear-memories.command.js';
import { CompleteProposalHandler } from './commands/complete-proposal/complete-proposal.command.js';
import { DeleteMemoryController } from './commands/delete-memory/delete-memory.controller.js';
import { DeleteMemoryHandler } from './commands/delete-memory/delete-memory.command.js';
import { KeepExtractedMemoriesHandler } from './commands/keep-extracted-memories/keep-extracted-memories.command.js';
import { RecordMemoryRecallHandler } from './commands/record-memory-recall/record-memory-recall.command.js';
import { MemoryResolver, MemoryReads } from './memory-resolver.js';
import { MemoryEmbeddings } from './memory-embeddings.js';
import { MemoryScreening } from './memory-screening.js';
import { MemoryReader } from './memory.reader.js';
import { MemoryRepository } from './memory.repository.js';
import { MemoryContextProvider } from './memory.provider.js';
import { GetMemoryHandler } from './queries/get-memory/get-memory.query.js';
import { GetMemoryHistoryController } from './queries/get-memory-history/get-memory-history.controller.js';
import { GetMemoryHistoryHandler } from './queries/get-memory-history/get-memory-history.query.js';
import { GetProposalHandler } from './queries/get-proposal/get-proposal.query.js';
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
  RecordMemoryRecallHandler,
  KeepExtractedMemoriesHandler,
];

export const MEMORY_QUERY_HANDLERS = [
  ListMemoriesHandler,
  GetMemoryHistoryHandler,
  ListProposalsHandler,
  ListMemoriesAsOfHandler,
  GetMemoryHandler,
  GetProposalHandler,
];

@Module({
  imports: [ModelGatewayModule, ConversationsModule],
  controllers: MEMORY_CONTROLLERS,
  providers: [
    ...MEMORY_COMMAND_HANDLERS,
    ...MEMORY_QUERY_HANDLERS,
    MemoryRepository,
    MemoryReader,
    MemoryResolver,
    MemoryReads,
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
