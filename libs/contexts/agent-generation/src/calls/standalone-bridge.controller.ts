// The standalone bridge's model calls (`/api/v1/bridge/llm/...`, no Agent): what a standalone App's bridge may do
// (spec, bridge additions: generateText, generateObject and generateImage run on a standalone bridge with the
// instance-wide default model; speech and transcription alike). Only App credentials reach these routes (the guard,
// by path), and the policy's `app.standalone` decides; the same commands as the Agent routes answer, with no Agent.
import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { ApiRoute, parseOrThrow, ZodBody } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { abortOnDisconnect } from '#model-gateway';
import { rejectInstructionRoles } from '../chat-request.js';
import {
  GenerateImageBody,
  GenerateObjectBody,
  GenerateSpeechBody,
  GenerateTextBody,
  ImageResultDto,
  ObjectResultDto,
  TextResultDto,
  TranscribeBody,
} from '../llm.schemas.js';
import { GenerateImage, GenerateImageCall } from './generate-image/generate-image.call.js';
import { GenerateObject, GenerateObjectCall } from './generate-object/generate-object.call.js';
import { GenerateSpeech, GenerateSpeechCall } from './generate-speech/generate-speech.call.js';
import { SPEECH_ROUTE_DOC } from './generate-speech/generate-speech.controller.js';
import { GenerateText, GenerateTextCall } from './generate-text/generate-text.call.js';
import { TranscribeAudio, TranscribeAudioCall } from './transcribe-audio/transcribe-audio.call.js';
import { TRANSCRIBE_ROUTE_DOC } from './transcribe-audio/transcribe-audio.controller.js';

const ERRORS = [
  400,
  401,
  { status: 403, description: '`principal_not_supported`: not an App' },
  404,
  429,
  502,
  504,
];

@Controller('api/v1/bridge/llm')
export class StandaloneBridgeController {
  constructor(
    private readonly generateTextCall: GenerateTextCall,
    private readonly generateObjectCall: GenerateObjectCall,
    private readonly generateImageCall: GenerateImageCall,
    private readonly generateSpeechCall: GenerateSpeechCall,
    private readonly transcribeAudioCall: TranscribeAudioCall,
  ) {}

  @ApiRoute({
    tag: 'Bridge',
    summary: 'Generate text without an Agent (standalone bridge)',
    description:
      "The instance's default chat model unless `model` names another; no system prompt, no conversation.",
    body: GenerateTextBody,
    response: { status: 200, schema: TextResultDto, description: "The model's answer" },
    errors: ERRORS,
  })
  @Post('generateText')
  @HttpCode(200)
  generateText(
    @Body() raw: unknown,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const signal = abortOnDisconnect(reply);
    rejectInstructionRoles(raw);
    return this.generateTextCall.execute(
      new GenerateText(null, parseOrThrow(GenerateTextBody, raw), caller, signal),
    );
  }

  @ApiRoute({
    tag: 'Bridge',
    summary: 'Generate a JSON object without an Agent (standalone bridge)',
    body: GenerateObjectBody,
    response: { status: 200, schema: ObjectResultDto, description: 'An object valid for the schema' },
    errors: [...ERRORS, 422],
  })
  @Post('generateObject')
  @HttpCode(200)
  generateObject(
    @Body() raw: unknown,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const signal = abortOnDisconnect(reply);
    rejectInstructionRoles(raw);
    return this.generateObjectCall.execute(
      new GenerateObject(null, parseOrThrow(GenerateObjectBody, raw), caller, signal),
    );
  }

  @ApiRoute({
    tag: 'Bridge',
    summary: 'Generate an image without an Agent (standalone bridge)',
    body: GenerateImageBody,
    response: { status: 200, schema: ImageResultDto, description: 'The image' },
    errors: ERRORS,
  })
  @Post('generateImage')
  @HttpCode(200)
  generateImage(
    @Body(new ZodBody(GenerateImageBody)) body: GenerateImageBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.generateImageCall.execute(new GenerateImage(null, body, caller, abortOnDisconnect(reply)));
  }

  @ApiRoute({
    ...SPEECH_ROUTE_DOC,
    tag: 'Bridge',
    summary: 'Synthesize speech without an Agent (standalone bridge)',
  })
  @Post('speech')
  @HttpCode(200)
  speech(
    @Body(new ZodBody(GenerateSpeechBody)) body: z.output<typeof GenerateSpeechBody>,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.generateSpeechCall.execute(new GenerateSpeech(null, body, caller, abortOnDisconnect(reply)));
  }

  @ApiRoute({
    ...TRANSCRIBE_ROUTE_DOC,
    tag: 'Bridge',
    summary: 'Transcribe audio without an Agent (standalone bridge)',
  })
  @Post('transcribe')
  @HttpCode(200)
  transcribe(
    @Body(new ZodBody(TranscribeBody)) body: z.output<typeof TranscribeBody>,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.transcribeAudioCall.execute(
      new TranscribeAudio(null, body, caller, abortOnDisconnect(reply)),
    );
  }
}
