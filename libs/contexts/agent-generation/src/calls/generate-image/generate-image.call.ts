// Generating an image for the Agent's caller: the named image model or the instance's default.
import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import type { Caller } from '#access';
import { AgentCalls, scopeOf } from '../../agent-calls.js';
import { validateMask } from '../../image-mask.js';
import type { GenerateImageBody, ImageResultDto } from '../../llm.schemas.js';

export class GenerateImage {
  constructor(
    /** null: a standalone App's bridge (the instance-wide default model). */
    readonly agentId: string | null,
    readonly body: GenerateImageBody,
    readonly caller: Caller,
    readonly signal: AbortSignal,
  ) {}
}

/** Runs the call: a direct service call from its controller (it carries the client's AbortSignal; see the module header). */
@Injectable()
export class GenerateImageCall {
  constructor(private readonly calls: AgentCalls) {}

  async execute({ agentId, body, caller, signal }: GenerateImage): Promise<z.output<typeof ImageResultDto>> {
    if (body.mask !== undefined) validateMask(body.mask);
    await this.calls.authorizeAgent(agentId, caller);
    const model =
      body.model !== undefined
        ? this.calls.gateway.resolve(body.model, 'image')
        : this.calls.defaultImageModel();
    const result = await this.calls.gateway.image(
      scopeOf(caller, agentId),
      model,
      {
        prompt: body.prompt,
        aspectRatio: body.aspectRatio,
        resolution: body.resolution,
        ...(body.mask !== undefined ? { mask: body.mask } : {}),
        ...(body.imageConfig !== undefined ? { imageConfig: body.imageConfig } : {}),
      },
      signal,
    );
    return {
      base64: result.base64,
      mimeType: result.mimeType,
      width: result.width,
      height: result.height,
      model: model.key,
    };
  }
}
