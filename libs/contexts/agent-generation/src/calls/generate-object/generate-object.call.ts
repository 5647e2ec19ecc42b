// Generating a JSON object that matches a schema, as the Agent: the answer is validated, an invalid one gets exactly
// one repair attempt, a second invalid one is 422 `object_validation_failed`.
import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import type { Caller } from '#access';
import { AgentCalls, toUsage } from '../../agent-calls.js';
import { compileSchema } from '../../json-schema.js';
import type { GenerateObjectBody, ObjectResultDto } from '../../llm.schemas.js';
import { generateStructuredOutput } from '../../structured-output.js';

const DEFAULT_SCHEMA_NAME = 'response';

export class GenerateObject {
  constructor(
    /** null: a standalone App's bridge (the instance-wide default model). */
    readonly agentId: string | null,
    readonly body: GenerateObjectBody,
    readonly caller: Caller,
    readonly signal: AbortSignal,
  ) {}
}

/** Runs the call: a direct service call from its controller (it carries the client's AbortSignal; see the module header). */
@Injectable()
export class GenerateObjectCall {
  constructor(private readonly calls: AgentCalls) {}

  async execute({
    agentId,
    body,
    caller,
    signal,
  }: GenerateObject): Promise<z.output<typeof ObjectResultDto>> {
    const validate = compileSchema(body.schema);
    const call = await this.calls.prepare(agentId, body, caller);
    const request = this.calls.chatRequest(call, body, {
      type: 'json_schema',
      json_schema: { name: body.schemaName ?? DEFAULT_SCHEMA_NAME, schema: body.schema },
    });
    const output = await generateStructuredOutput(
      (followUp) =>
        this.calls.gateway.chat(
          call.scope,
          call.model,
          { ...request, messages: [...request.messages, ...followUp] },
          signal,
          'generateObject',
        ),
      validate,
    );
    return {
      object: output.object,
      model: call.model.key,
      finishReason: output.finishReason,
      usage: toUsage(output.usage),
      repaired: output.repaired,
    };
  }
}
