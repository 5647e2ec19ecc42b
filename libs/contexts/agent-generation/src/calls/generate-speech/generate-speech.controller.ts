// POST /llm/{agentId}/speech (our design; `llm.generateSpeech` of the bridge under /api/v1/bridge/agents/{agentId}).
import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { abortOnDisconnect } from '#model-gateway';
import { GenerateSpeechBody, SpeechResultDto } from '../../llm.schemas.js';
import { GenerateSpeech, GenerateSpeechCall } from './generate-speech.call.js';

export const SPEECH_ROUTE_DOC = {
  tag: 'LLM',
  summary: 'Synthesize speech',
  description:
    "One `voiceName`, or `speakers` (at most 2) for a text that names them. The instance's default speech model " +
    'unless `model` names another; offline, `offline-speech` answers a WAV that `offline-transcribe` reads back.',
  body: GenerateSpeechBody,
  response: { status: 200, schema: SpeechResultDto, description: 'The audio, base64' },
  errors: [400, 403, { status: 404, description: '`model_not_found`' }, 429, 502, 504],
};

@Controller(['api/v1/core/llm/:agentId', 'api/v1/bridge/agents/:agentId/llm'])
export class GenerateSpeechController {
  constructor(private readonly call: GenerateSpeechCall) {}

  @ApiRoute(SPEECH_ROUTE_DOC)
  @Post('speech')
  @HttpCode(200)
  speech(
    @Param('agentId') agentId: string,
    @Body(new ZodBody(GenerateSpeechBody)) body: z.output<typeof GenerateSpeechBody>,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.call.execute(new GenerateSpeech(agentId, body, caller, abortOnDisconnect(reply)));
  }
}
