// Generating text as the Agent: its system prompt, the conversation's history, then the messages, on its model (or
// the one named) with its sampling controls, through the ModelGateway (limits, usage).
import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import type { Caller } from '#access';
import { AgentCalls, toUsage } from '../../agent-calls.js';
import type { GenerateTextBody, TextResultDto } from '../../llm.schemas.js';

export class GenerateText {
  constructor(
    /** null: a standalone App's bridge (the instance-wide default model). */
    readonly agentId: string | null,
    readonly body: GenerateTextBody,
    readonly caller: Caller,
    /** Aborted when the client disconnects: the upstream call is cancelled. */
    readonly signal: AbortSignal,
  ) {}
}

/** Runs the call: a direct service call from its controller (it carries the client's AbortSignal; see the module header). */
@Injectable()
export class GenerateTextCall {
  constructor(private readonly calls: AgentCalls) {}

  async execute({ agentId, body, caller, signal }: GenerateText): Promise<z.output<typeof TextResultDto>> {
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
