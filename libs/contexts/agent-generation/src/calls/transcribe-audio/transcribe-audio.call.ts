// Transcribing audio for an Agent's caller (or a standalone App): the named transcription model, through the
// ModelGateway. Offline, offline-transcribe reads back what offline-speech said.
import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import type { Caller } from '#access';
import { ValidationError } from '#kernel';
import { AgentCalls, scopeOf } from '../../agent-calls.js';
import {
  TRANSCRIPTION_AUDIO_BYTES,
  type TranscribeBody,
  type TranscriptionResultDto,
} from '../../llm.schemas.js';

export class TranscribeAudio {
  constructor(
    /** null: a standalone App's bridge. */
    readonly agentId: string | null,
    readonly body: TranscribeBody,
    readonly caller: Caller,
    readonly signal: AbortSignal,
  ) {}
}

/** Runs the call: a direct service call from its controller (it carries the client's AbortSignal; see the module header). */
@Injectable()
export class TranscribeAudioCall {
  constructor(private readonly calls: AgentCalls) {}

  async execute({
    agentId,
    body,
    caller,
    signal,
  }: TranscribeAudio): Promise<z.output<typeof TranscriptionResultDto>> {
    await this.calls.authorizeAgent(agentId, caller);
    const model = this.calls.gateway.resolve(body.model, 'transcription');
    const audio = Buffer.from(body.audioBase64, 'base64');
    if (audio.length > TRANSCRIPTION_AUDIO_BYTES)
      throw new ValidationError('audio_too_large', 'the audio is over 10 MiB', 'audioBase64');
    const result = await this.calls.gateway.transcribe(
      scopeOf(caller, agentId),
      model,
      { audio, mimeType: body.mimeType, ...(body.prompt !== undefined ? { prompt: body.prompt } : {}) },
      signal,
    );
    return { text: result.text, model: model.key };
  }
}
