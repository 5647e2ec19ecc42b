// POST /llm/{agentId}/generateText (spec).
import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { abortOnDisconnect } from '#model-gateway';
import { ApiRoute, parseOrThrow } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { rejectInstructionRoles } from '../../chat-request.js';
import { generateErrors } from '../../generate-errors.js';
import { GenerateTextBody, TextResultDto } from '../../llm.schemas.js';
import { GenerateText, GenerateTextCall } from './generate-text.call.js';

@Controller(['api/v1/core/llm/:agentId', 'api/v1/bridge/agents/:agentId/llm'])
export class GenerateTextController {
  constructor(private readonly call: GenerateTextCall) {}

  @ApiRoute({
    tag: 'LLM',
    summary: 'Generate text as the Agent',
    description:
      "The Agent's system prompt is sent first, then the conversation's history (with `conversationId`), then the " +
      "messages. The Agent's model is used unless `model` names another chat model, with the Agent's temperature, " +
      'top_p and top_k (each left out when disabled).',
    body: GenerateTextBody,
    response: { status: 200, schema: TextResultDto, description: "The model's answer" },
    errors: generateErrors(),
  })
  @Post('generateText')
  @HttpCode(200)
  generateText(
    @Param('agentId') agentId: string,
    @Body() raw: unknown,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const signal = abortOnDisconnect(reply);
    rejectInstructionRoles(raw);
    return this.call.execute(new GenerateText(agentId, parseOrThrow(GenerateTextBody, raw), caller, signal));
  }
}
