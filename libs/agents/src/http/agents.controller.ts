// HTTP routes of Agents (spec: GET/POST /agents, PUT/DELETE /agents/{agentId}, PUT /agents/{agentId}/prompt; GET one
// is our extension). Every agent-scoped route checks the API key's grants.
import { accessibleAgent } from '../accessible-agent.js';
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Put,
  Query,
  UseInterceptors,
} from '@nestjs/common';
import {
  IdempotencyInterceptor,
  commandContext,
  CurrentCaller,
  type Caller,
  canAccessAgent,
} from '#identity';
import { CommandBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ForbiddenError, NotFoundError, ValidationError } from '#kernel';
import { newEntityId } from '#eventsourcing';
import { changeableSpace, SpaceGrants } from '#spaces';
import { kindWithArticle, ModelRegistry } from '#models';
import { READ_STORE, type ReadStore } from '#read-store';
import { ReadYourWrites } from '#platform';
import { listOf, ZodBody, ZodQuery, ApiRoute } from '#http';
import { AGENTS, type AgentView } from '../agents.read-model.js';
import { ExecuteAgentCommand, type WriteResult } from '../agent.commands.js';
import type { AgentCommand } from '../agent.decider.js';
import {
  AgentDto,
  AgentListQuery,
  ChangeAgentBody,
  ChangeAgentPromptBody,
  CreateAgentBody,
} from './agent.schemas.js';

const READ_MODELS = ['agents'];

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/agents')
export class AgentsController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly consistency: ReadYourWrites,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly grants: SpaceGrants,
    private readonly models: ModelRegistry,
  ) {}

  private get agents() {
    return this.readStore.reader<AgentView>(AGENTS);
  }

  @ApiRoute({
    tag: 'Agents',
    summary: 'List the Agents this key may use',
    query: AgentListQuery,
    response: {
      status: 200,
      schema: listOf(AgentDto),
      description:
        "A page of Agents, oldest first (may be short: Agents outside the key's grants are left out)",
    },
    errors: [400],
  })
  @Get()
  async list(
    @Query(new ZodQuery(AgentListQuery)) query: z.output<typeof AgentListQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    const access = caller.apiKey.agentAccess;
    const filter = {
      ...(query.spaceId ? { spaceId: query.spaceId } : {}),
      ...(!caller.isAdmin && access.kind === 'agents' ? { id: { $in: access.agentIds } } : {}),
    };
    const page = await this.agents.find(filter, {
      sort: { field: 'createdAt' },
      limit: query.limit,
      cursor: query.cursor ?? null,
    });
    // Another user's personal Agent is filtered out after paging: a page may be short, the cursor stays exact.
    return {
      data: page.data.map(toDto).filter((agent) => canAccessAgent(caller, agent)),
      nextCursor: page.nextCursor,
    };
  }

  @ApiRoute({
    tag: 'Agents',
    summary: 'Get an Agent (extension)',
    response: { status: 200, schema: AgentDto, description: 'The Agent' },
    errors: [403, 404, { status: 409, description: "`personal_agent_undeletable`: a user's personal Agent" }],
  })
  @Get(':agentId')
  async get(@Param('agentId') agentId: string, @CurrentCaller() caller: Caller) {
    return toDto(await accessibleAgent(this.readStore, agentId, caller));
  }

  @ApiRoute({
    tag: 'Agents',
    summary: 'Create an Agent',
    body: CreateAgentBody,
    idempotent: true,
    response: { status: 201, schema: AgentDto, description: 'The created Agent' },
    errors: [
      {
        status: 400,
        description:
          '`invalid_model` (not a configured chat model), `unknown_space` (no such Space, or one this key cannot see)',
      },
      { status: 403, description: '`space_change_denied`: the key may not change that Space' },
    ],
  })
  @Post()
  async create(
    @Body(new ZodBody(CreateAgentBody)) body: z.output<typeof CreateAgentBody>,
    @CurrentCaller() caller: Caller,
  ) {
    if (!caller.isAdmin && caller.apiKey.agentAccess.kind !== 'all')
      throw new ForbiddenError(
        'agent_creation_denied',
        'only keys with access to all Agents can create Agents',
      );
    await this.requireSpace(body.spaceId, caller);
    this.requireChatModel(body.model);
    const { spaceId, ...settings } = body;
    const agentId = newEntityId(commandContext(caller), 'agt');
    return this.execute(
      {
        type: 'CreateAgent',
        agentId,
        spaceId,
        isPersonal: false,
        ownerUserId: null,
        settings: { ...settings, model: settings.model ?? this.models.defaultModel('chat')!.key },
      },
      caller,
    );
  }

  @ApiRoute({
    tag: 'Agents',
    summary: 'Update an Agent',
    description:
      'Partial: fields left out keep their value. Each changed setting is recorded as its own event.',
    body: ChangeAgentBody,
    response: { status: 200, schema: AgentDto, description: 'The updated Agent' },
    errors: [400, 403, 404],
  })
  @Put(':agentId')
  async change(
    @Param('agentId') agentId: string,
    @Body(new ZodBody(ChangeAgentBody)) body: z.output<typeof ChangeAgentBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const agent = await accessibleAgent(this.readStore, agentId, caller);
    const { spaceId, ...settings } = body;
    if (spaceId !== undefined && spaceId !== agent.spaceId) await this.requireSpace(spaceId, caller);
    this.requireChatModel(settings.model);
    return this.execute(
      { type: 'ChangeAgent', agentId, ...(spaceId !== undefined ? { spaceId } : {}), settings },
      caller,
    );
  }

  @ApiRoute({
    tag: 'Agents',
    summary: "Update the Agent's system prompt",
    body: ChangeAgentPromptBody,
    response: { status: 200, schema: AgentDto, description: 'The updated Agent' },
    errors: [400, 403, 404],
  })
  @Put(':agentId/prompt')
  async changePrompt(
    @Param('agentId') agentId: string,
    @Body(new ZodBody(ChangeAgentPromptBody)) body: z.output<typeof ChangeAgentPromptBody>,
    @CurrentCaller() caller: Caller,
  ) {
    await accessibleAgent(this.readStore, agentId, caller);
    return this.execute(
      { type: 'ChangeAgentSystemPrompt', agentId, systemPrompt: body.systemPrompt },
      caller,
    );
  }

  @ApiRoute({
    tag: 'Agents',
    summary: 'Delete an Agent',
    response: { status: 204, description: 'Deleted' },
    errors: [403, 404],
  })
  @Delete(':agentId')
  @HttpCode(204)
  async delete(@Param('agentId') agentId: string, @CurrentCaller() caller: Caller): Promise<void> {
    await accessibleAgent(this.readStore, agentId, caller);
    const result = await this.commandBus.execute<ExecuteAgentCommand, WriteResult>(
      new ExecuteAgentCommand({ type: 'DeleteAgent', agentId, reason: 'requested' }, commandContext(caller)),
    );
    await this.consistency.settle(result.position, READ_MODELS);
  }

  private async execute(command: AgentCommand, caller: Caller) {
    const result = await this.commandBus.execute<ExecuteAgentCommand, WriteResult>(
      new ExecuteAgentCommand(command, commandContext(caller)),
    );
    await this.consistency.settle(result.position, READ_MODELS);
    return this.get(result.id, caller);
  }

  /**
   * An Agent goes only into a Space the caller may change: one it cannot see is `unknown_space` (whether or not it
   * exists), one it only sees is 403. Moving an own Agent into another team's Space gave access to its Knowledge.
   */
  private async requireSpace(spaceId: string, caller: Caller): Promise<void> {
    try {
      await changeableSpace(this.readStore, this.grants, spaceId, caller);
    } catch (error) {
      if (error instanceof NotFoundError)
        throw new ValidationError('unknown_space', `Space '${spaceId}' does not exist`, 'spaceId');
      throw error;
    }
  }

  /** Only a configured chat model: any other name made every later generate call fail. */
  private requireChatModel(model: string | undefined): void {
    if (model === undefined) return;
    const configured = this.models.get(model);
    if (configured?.kind !== 'chat')
      throw new ValidationError(
        'invalid_model',
        configured
          ? `'${model}' is ${kindWithArticle(configured.kind)} model, not a chat model`
          : `'${model}' is not a chat model configured on this instance (GET /api/v1/core/llm/{agentId}/models lists them)`,
        'model',
      );
  }
}

const toDto = (agent: AgentView) => ({
  id: agent.id,
  spaceId: agent.spaceId,
  name: agent.name,
  model: agent.model,
  systemPrompt: agent.systemPrompt,
  isPersonal: agent.isPersonal,
  ownerUserId: agent.ownerUserId,
  memoryEnabled: agent.memoryEnabled,
  sharedMemoryEnabled: agent.sharedMemoryEnabled,
  isPublic: agent.isPublic,
  allowedUrls: agent.allowedUrls,
  embedSessionMinutes: agent.embedSessionMinutes,
  embedWindowTitle: agent.embedWindowTitle,
  temperature: agent.temperature,
  topP: agent.topP,
  topK: agent.topK,
  knowledgeEnabled: agent.knowledgeEnabled,
  includeAiSummary: agent.includeAiSummary,
  createdAt: agent.createdAt,
  updatedAt: agent.updatedAt,
});
