// The core LLM endpoints (spec: POST /llm/{agentId}/generateText, generateObject, generateImage; GET models and
// usage). They call models as an Agent: its system prompt first, its model by default, its sampling controls, and
// the caller's conversation history when one is named. Every call goes through the ModelGateway, so the key's usage
// limit applies (429) and usage is recorded against key, user and Agent; a client that disconnects aborts the call.
import { accessibleAgent } from '#agents';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { PlatformError } from '#kernel';
import { CurrentCaller, type Caller } from '#identity';
import type { RouteDoc } from '#http';
import { parseOrThrow, ZodBody, ZodQuery, ApiRoute } from '#http';
import { ModelRegistry } from '#models';
import type { ModelConfig, ChatRequest, TokenUsage } from '#models';
import { READ_STORE, type ReadStore } from '#read-store';
import { callerScope, ModelGateway, type CallScope, abortOnDisconnect } from '#gateway';
import type { AgentView } from '#agents';
import { buildChatRequest, rejectInstructionRoles } from '../chat-request.js';
import { ConversationAccess } from '../conversation-access.js';
import { validateMask } from '../image-mask.js';
import { compileSchema } from '../json-schema.js';
import { generateStructuredOutput } from '../structured-output.js';
import { usageRange, usageReport, UsageRangeQuery } from '#usage';
import {
  GenerateImageBody,
  GenerateObjectBody,
  GenerateTextBody,
  ImageResultDto,
  ModelsDto,
  ObjectResultDto,
  TextResultDto,
  UsageDto,
} from './llm.schemas.js';

const DEFAULT_SCHEMA_NAME = 'response';

const toUsage = (usage: TokenUsage) => ({
  inputTokens: usage.inputTokens,
  cachedInputTokens: usage.cachedInputTokens,
  outputTokens: usage.outputTokens,
});

/** What a generate call needs once the request is accepted: the Agent, the model, the history and who pays. */
interface AgentCall {
  readonly agent: AgentView;
  readonly model: ModelConfig;
  readonly history: readonly ChatCompletionMessageParam[];
  readonly scope: CallScope;
}

const generateErrors = (moreBadRequests = ''): NonNullable<RouteDoc['errors']> => [
  {
    status: 400,
    description:
      'Invalid request, the field named in `param`. A system or developer message is `system_role_not_allowed` ' +
      `(param \`messages.<index>.role\`)${moreBadRequests}`,
  },
  403,
  {
    status: 404,
    description:
      'Unknown Agent (`agent_not_found`), model (`model_not_found`) or conversation (`conversation_not_found`)',
  },
  429,
  502,
  504,
];

@Controller('api/v1/core/llm/:agentId')
export class LlmController {
  constructor(
    private readonly gateway: ModelGateway,
    private readonly models: ModelRegistry,
    private readonly conversations: ConversationAccess,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

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
  async generateText(
    @Param('agentId') agentId: string,
    @Body() raw: unknown,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const signal = abortOnDisconnect(reply);
    rejectInstructionRoles(raw);
    const body = parseOrThrow(GenerateTextBody, raw);
    const call = await this.prepare(agentId, body, caller);
    const result = await this.gateway.chat(
      call.scope,
      call.model,
      this.chatRequest(call, body),
      signal,
      'generateText',
    );
    return {
      text: result.message.content ?? '',
      model: call.model.key,
      finishReason: result.finishReason,
      usage: toUsage(result.usage),
    };
  }

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
  async generateObject(
    @Param('agentId') agentId: string,
    @Body() raw: unknown,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const signal = abortOnDisconnect(reply);
    rejectInstructionRoles(raw);
    const body = parseOrThrow(GenerateObjectBody, raw);
    const validate = compileSchema(body.schema);
    const call = await this.prepare(agentId, body, caller);
    const request = this.chatRequest(call, body, {
      type: 'json_schema',
      json_schema: { name: body.schemaName ?? DEFAULT_SCHEMA_NAME, schema: body.schema },
    });
    const output = await generateStructuredOutput(
      (followUp) =>
        this.gateway.chat(
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
  async generateImage(
    @Param('agentId') agentId: string,
    @Body(new ZodBody(GenerateImageBody)) body: GenerateImageBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const signal = abortOnDisconnect(reply);
    if (body.mask !== undefined) validateMask(body.mask);
    await accessibleAgent(this.readStore, agentId, caller);
    const model =
      body.model !== undefined ? this.gateway.resolve(body.model, 'image') : this.defaultImageModel();
    const result = await this.gateway.image(
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

  @ApiRoute({
    tag: 'LLM',
    summary: "List the Agent's allowed models",
    response: { status: 200, schema: ModelsDto, description: 'The chat models and the default one' },
    errors: [403, 404],
  })
  @Get('models')
  async listModels(@Param('agentId') agentId: string, @CurrentCaller() caller: Caller) {
    const agent = await accessibleAgent(this.readStore, agentId, caller);
    const models = this.models.infos(['chat']);
    const agentModel = this.models.get(agent.model);
    return {
      defaultModel: agentModel?.kind === 'chat' ? agentModel.key : this.models.defaultModel('chat')!.key,
      availableModels: models.map((model) => model.key),
      models,
    };
  }

  @ApiRoute({
    tag: 'LLM',
    summary: "The Agent's model usage per UTC day",
    description: 'Calls appear a moment after they end (the usage read model is updated asynchronously).',
    query: UsageRangeQuery,
    response: { status: 200, schema: UsageDto, description: 'Totals and the days with calls' },
    errors: [400, 403, 404],
  })
  @Get('usage')
  async usage(
    @Param('agentId') agentId: string,
    @Query(new ZodQuery(UsageRangeQuery)) query: UsageRangeQuery,
    @CurrentCaller() caller: Caller,
  ) {
    const range = usageRange(query);
    await accessibleAgent(this.readStore, agentId, caller);
    const { from, to, totals, days } = await usageReport(this.readStore, 'agent', agentId, range);
    return { agentId, from, to, totals, days };
  }

  private async prepare(
    agentId: string,
    body: { readonly model?: string | undefined; readonly conversationId?: string | undefined },
    caller: Caller,
  ): Promise<AgentCall> {
    const agent = await accessibleAgent(this.readStore, agentId, caller);
    const history = body.conversationId
      ? await this.conversations.historyFor(caller, agent, body.conversationId)
      : [];
    return { agent, model: this.chatModel(agent, body.model), history, scope: scopeOf(caller, agentId) };
  }

  private chatRequest(
    call: AgentCall,
    body: GenerateTextBody,
    responseFormat?: ChatRequest['response_format'],
  ): ChatRequest {
    return buildChatRequest({
      agent: call.agent,
      history: call.history,
      // The schema checked roles and fields; the provider types are the chat-completions ones it mirrors.
      messages: body.messages as ChatCompletionMessageParam[],
      maxTokens: body.maxTokens,
      responseFormat,
    });
  }

  /** The requested model, or the Agent's; either must be a chat model configured on this instance. */
  private chatModel(agent: AgentView, requested: string | undefined): ModelConfig {
    if (requested !== undefined) return this.gateway.resolve(requested, 'chat');
    const model = this.models.get(agent.model);
    if (model?.kind !== 'chat')
      throw new PlatformError(
        'not_found',
        'model_not_found',
        `the Agent's model '${agent.model}' is not a chat model configured on this instance; ` +
          'send `model` to use another one (GET /llm/{agentId}/models lists them)',
      );
    return model;
  }

  private defaultImageModel(): ModelConfig {
    const model = this.models.defaultModel('image');
    if (!model)
      throw new PlatformError('not_found', 'model_not_found', 'this instance has no default image model');
    return model;
  }
}

const scopeOf = (caller: Caller, agentId: string): CallScope => callerScope(caller, 'core', agentId);
