// A recorded tool's call as the turn reports it (requested, decided, finished): sent by the turn itself
// (runtime/places/stored-place.ts) with the turn's context, and by an MCP App view's own call (the apps context's
// call-view-tool, whose command the gate asked about the conversation).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AskedAtRoute } from '#access';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { ToolCallRepository, type ToolCallFact } from '../../tool-call.repository.js';

@AskedAtRoute(
  "no route sends it: only the turn itself and a view's call, whose Agent and conversation the gate asked about (UseAgent, UseConversation, CallViewTool)",
)
export class RecordToolCall extends Command<WriteResult> {
  constructor(
    readonly conversationId: string,
    readonly fact: ToolCallFact,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(RecordToolCall)
export class RecordToolCallHandler implements ICommandHandler<RecordToolCall> {
  constructor(private readonly repository: ToolCallRepository) {}

  async execute({ conversationId, fact, context }: RecordToolCall): Promise<WriteResult> {
    return { id: fact.callId, position: await this.repository.record(conversationId, fact, context) };
  }
}
