// POST /llm/{agentId}/generateObject (spec).
import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { abortOnDisconnect } from '#model-gateway';
import { ApiRoute, parseOrThrow } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { rejectInstructionRoles } from '../../chat-request.js';
import { generateErrors } from '../../generate-errors.js';
import { GenerateObjectBody, ObjectResultDto } from '../../llm.schemas.js';
import { GenerateObject, GenerateObjectCall } from './generate-object.call.js';

@Controller(['api/v1/core/llm/:agentId', 'api/v1/bridge/agents/:agentId/llm'])
export class GenerateObjectController {
  constructor(private readonly call: GenerateObjectCall) {}

  @ApiRoute({
    tag: 'LLM',
    summary: 'Generate a JSON object matching a schema, as the Agent',
    description:
      'Like generateText, asking the model for JSON that matches `schema` (response_format json_schema). The answer ' +
      'is validated; an invalid one gets exactly one repair attempt (the model sees its output and the errors), ' +
      'and a second invalid one is 422 `object_validation_failed`.',
    body: GenerateObjectBody,
    response: { status: 200, schema: ObjectResultDto, description: 'An object valid for the schema' },
    errors: [
      ...generateErrors(
        '; a schema ajv cannot compile, or that takes over a second to compile or check, is `invalid_schema`',
      ),
      {
        status: 422,
        description:
          '`object_validation_failed`: the output did not match the schema after one repair attempt (the message lists the first errors)',
      },
    ],
  })
  @Post('generateObject')
  @HttpCode(200)
  generateObject(
    @Param('agentId') agentId: string,
    @Body() raw: unknown,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const signal = abortOnDisconnect(reply);
    rejectInstructionRoles(raw);
    return this.call.execute(
      new GenerateObject(agentId, parseOrThrow(GenerateObjectBody, raw), caller, signal),
    );
  }
}
