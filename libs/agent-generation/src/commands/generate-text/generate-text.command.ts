// Generating text as the Agent: its system prompt, the conversation's history, then the messages, on its model (or
// the one named) with its sampling controls, through the ModelGateway (limits, usage).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import type { Caller } from '#identity';
import { AgentCalls, toUsage } from '../../agent-calls.js';
import type { GenerateTextBody, TextResultDto } from '../../llm.schemas.js';

export class GenerateText extends Command<z.output<typeof TextResultDto>> {
  constructor(
    /** null: a standalone App's bridge (the instance-wide default model). */
    readonly agentId: string | null,
    readonly body: GenerateTextBody,
    readonly caller: Caller,
    /** Aborted when the client disconnects: the upstream call is cancelled. */
    readonly signal: AbortSignal,
  ) {
    super();
  }
}

@CommandHandler(GenerateText)
export class GenerateTextHandler implements ICommandHandler<GenerateText> {
  constructor(private readonly calls: AgentCalls) {}

  async execute({ agentId, body, caller, signal }: GenerateText) {
    const call = await this.calls.prepare(agentId, body, caller);
    const result = await this.calls.gateway.chat(
      call.scope,
      call.model,
      this.calls.chatRequest(call, body),
      signal,
      'generateText',
    );
    return {
      text: result.message.content ?? '',
      model: call.model.key,
      finishReason: result.finishReason,
      usage: toUsage(result.usage),
    };
  }
}
