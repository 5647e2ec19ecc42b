// POST /llm/{agentId}/generateImage (spec).
import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { abortOnDisconnect } from '#model-gateway';
import { ApiRoute, ZodBody } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { GenerateImageBody, ImageResultDto } from '../../llm.schemas.js';
import { GenerateImage, GenerateImageCall } from './generate-image.call.js';

@Controller(['api/v1/core/llm/:agentId', 'api/v1/bridge/agents/:agentId/llm'])
export class GenerateImageController {
  constructor(private readonly call: GenerateImageCall) {}

  @ApiRoute({
    tag: 'LLM',
    summary: 'Generate an image',
    description: "Uses `model` or the instance's default image model; the image is returned as base64.",
    body: GenerateImageBody,
    response: { status: 200, schema: ImageResultDto, description: 'The image' },
    errors: [
      {
        status: 400,
        description: 'Invalid request, the field named in `param` (a bad mask is `invalid_mask`)',
      },
      403,
      { status: 404, description: 'Unknown Agent (`agent_not_found`) or image model (`model_not_found`)' },
      429,
      502,
      504,
    ],
  })
  @Post('generateImage')
  @HttpCode(200)
  generateImage(
    @Param('agentId') agentId: string,
    @Body(new ZodBody(GenerateImageBody)) body: GenerateImageBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.call.execute(new GenerateImage(agentId, body, caller, abortOnDisconnect(reply)));
  }
}
