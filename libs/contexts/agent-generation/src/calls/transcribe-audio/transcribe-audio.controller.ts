// POST /llm/{agentId}/transcribe (our design; `llm.transcribe` of the bridge under /api/v1/bridge/agents/{agentId}).
import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { abortOnDisconnect } from '#model-gateway';
import { TRANSCRIPTION_BODY_BYTES, TranscribeBody, TranscriptionResultDto } from '../../llm.schemas.js';
import { TranscribeAudio, TranscribeAudioCall } from './transcribe-audio.call.js';

export const TRANSCRIBE_ROUTE_DOC = {
  tag: 'LLM',
  summary: 'Transcribe audio',
  description:
    'The audio in base64 (at most 10 MiB decoded) with its MIME type; `model` names a transcription model ' +
    '(`offline-transcribe` reads back what `offline-speech` said).',
  body: TranscribeBody,
  bodyLimitBytes: TRANSCRIPTION_BODY_BYTES,
  response: { status: 200, schema: TranscriptionResultDto, description: 'The text' },
  errors: [400, 403, { status: 404, description: '`model_not_found`' }, 413, 429, 502, 504],
};

@Controller(['api/v1/core/llm/:agentId', 'api/v1/bridge/agents/:agentId/llm'])
export class TranscribeAudioController {
  constructor(private readonly call: TranscribeAudioCall) {}

  @ApiRoute(TRANSCRIBE_ROUTE_DOC)
  @Post('transcribe')
  @HttpCode(200)
  transcribe(
    @Param('agentId') agentId: string,
    @Body(new ZodBody(TranscribeBody)) body: z.output<typeof TranscribeBody>,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.call.execute(new TranscribeAudio(agentId, body, caller, abortOnDisconnect(reply)));
  }
}
