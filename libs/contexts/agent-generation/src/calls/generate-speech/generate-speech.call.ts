// Speech for an Agent's caller (or a standalone App): the named speech model or the instance's default, one voice
// or at most 2 speakers, through the ModelGateway (limits, usage). Offline it is a real WAV (offline-speech).
import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import type { Caller } from '#access';
import { AgentCalls, scopeOf } from '../../agent-calls.js';
import type { GenerateSpeechBody, SpeechResultDto } from '../../llm.schemas.js';

export class GenerateSpeech {
  constructor(
    /** null: a standalone App's bridge. */
    readonly agentId: string | null,
    readonly body: GenerateSpeechBody,
    readonly caller: Caller,
    readonly signal: AbortSignal,
  ) {}
}

/** Runs the call: a direct service call from its controller (it carries the client's AbortSignal; see the module header). */
@Injectable()
export class GenerateSpeechCall {
  constructor(private readonly calls: AgentCalls) {}

  async execute({
    agentId,
    body,
    caller,
    signal,
  }: GenerateSpeech): Promise<z.output<typeof SpeechResultDto>> {
    await this.calls.authorizeAgent(agentId, caller);
    const model =
      body.model !== undefined
        ? this.calls.gateway.resolve(body.model, 'speech')
        : this.calls.defaultModel('speech', 'speech');
    const result = await this.calls.gateway.speech(
      scopeOf(caller, agentId),
      model,
      {
        text: body.text,
        ...(body.voiceName !== undefined ? { voiceName: body.voiceName } : {}),
        ...(body.speakers !== undefined ? { speakers: body.speakers } : {}),
      },
      signal,
    );
    return {
      base64: Buffer.from(result.audio).toString('base64'),
      mimeType: result.mimeType,
      model: model.key,
    };
  }
}
