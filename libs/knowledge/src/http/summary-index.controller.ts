// The section-summary index of an Agent (extension, spec: the Agent's AI-summary toggle): its status and progress,
// build (incremental), full rebuild and cancel, which are commands with events; and the serving tree itself.
import { accessibleAgent } from '#agents';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ConflictError, newId } from '#kernel';
import { IdempotencyInterceptor, commandContext, CurrentCaller, type Caller } from '#identity';
import { ZodBody, ApiRoute } from '#http';
import { ReadYourWrites } from '#platform';
import { READ_STORE, type ReadStore } from '#read-store';
import { ModelGateway } from '#gateway';
import type { AgentView } from '#agents';
import { SUMMARY_INDEX_PROJECTION, type SummaryIndexView } from '../summary/summary-index.read-model.js';
import { ExecuteSummaryIndexCommand, type WriteResult } from '../knowledge.commands.js';
import type { SummaryIndexCommand } from '../summary/summary-index.decider.js';
import { SummarySearch } from '../summary/summary-search.js';
import { SummaryBuildBody, SummaryIndexStatusDto, SummaryTreeDto } from './knowledge.schemas.js';

const toStatus = (agentId: string, view: SummaryIndexView | null) => {
  const building = view?.build?.state === 'requested' || view?.build?.state === 'running';
  return {
    agentId,
    status: building ? 'building' : view?.serving ? 'ready' : 'none',
    serving: view?.serving
      ? {
          buildId: view.serving.buildId,
          model: view.serving.model,
          nodeCount: view.serving.nodeCount,
          levels: view.serving.levels,
          leafCount: view.serving.leafCount,
          documentCount: view.serving.documentIds.length,
          builtAt: view.serving.builtAt,
        }
      : null,
    build: view?.build ?? null,
  };
};

const CONFLICT_RUNNING = {
  status: 409,
  description: '`summary_build_running`: a build is already under way (cancel it first)',
} as const;

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/knowledge/:agentId/summary-index')
export class SummaryIndexController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly consistency: ReadYourWrites,
    private readonly gateway: ModelGateway,
    private readonly summaries: SummarySearch,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary:
      "The Agent's section-summary index: the serving tree and the latest build's progress (extension)",
    description:
      'The index is a tree of summaries over the chunks of every Ready document the Agent can search: related ' +
      'chunks are grouped and summarised by the model, and the summaries grouped again, up to one root. Search ' +
      "returns the closest summary when the Agent's `includeAiSummary` is on.",
    response: { status: 200, schema: SummaryIndexStatusDto, description: 'Status' },
    errors: [403, 404],
  })
  @Get()
  async status(@Param('agentId') agentId: string, @CurrentCaller() caller: Caller) {
    await accessibleAgent(this.readStore, agentId, caller);
    return toStatus(agentId, await this.summaries.index(agentId));
  }

  /** Builds the index, reusing the summaries of groups that did not change (`full: true` rebuilds everything). */
  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Build the section-summary index, reusing the summaries of unchanged groups (extension)',
    description:
      "The Agent's chat model (the instance's default when it has none) writes the summaries. The build runs in " +
      'the background; GET shows its progress; the previous tree serves until it completes.',
    body: SummaryBuildBody,
    response: { status: 202, schema: SummaryIndexStatusDto, description: 'Requested' },
    errors: [400, 403, 404, CONFLICT_RUNNING],
    idempotent: true,
  })
  @Post('build')
  @HttpCode(202)
  async build(
    @Param('agentId') agentId: string,
    @Body(new ZodBody(SummaryBuildBody)) body: z.output<typeof SummaryBuildBody>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.requestBuild(await accessibleAgent(this.readStore, agentId, caller), body.full, caller);
  }

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Rebuild the section-summary index from scratch, summarising every group again (extension)',
    response: { status: 202, schema: SummaryIndexStatusDto, description: 'Requested' },
    errors: [403, 404, CONFLICT_RUNNING],
    idempotent: true,
  })
  @Post('rebuild')
  @HttpCode(202)
  async rebuild(@Param('agentId') agentId: string, @CurrentCaller() caller: Caller) {
    return this.requestBuild(await accessibleAgent(this.readStore, agentId, caller), true, caller);
  }

  /** Stops the build under way; the tree built before keeps serving. */
  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Cancel the build under way; the previous tree keeps serving (extension)',
    response: { status: 200, schema: SummaryIndexStatusDto, description: 'Cancelled' },
    errors: [403, 404, { status: 409, description: '`no_summary_build`: no build is under way' }],
  })
  @Post('cancel')
  @HttpCode(200)
  async cancel(@Param('agentId') agentId: string, @CurrentCaller() caller: Caller) {
    await accessibleAgent(this.readStore, agentId, caller);
    await this.execute({ type: 'CancelSummaryBuild', agentId }, caller);
    return toStatus(agentId, await this.summaries.index(agentId));
  }

  /** The serving tree: every summary, its level, children and documents (without embeddings). */
  @ApiRoute({
    tag: 'Knowledge',
    summary: 'The serving summary tree: every summary with its level, children and documents (extension)',
    response: { status: 200, schema: SummaryTreeDto, description: 'The tree' },
    errors: [403, 404, { status: 409, description: '`summary_index_not_built`: no build has completed' }],
  })
  @Get('tree')
  async tree(@Param('agentId') agentId: string, @CurrentCaller() caller: Caller) {
    await accessibleAgent(this.readStore, agentId, caller);
    const serving = (await this.summaries.index(agentId))?.serving;
    const tree = serving ? await this.summaries.tree(serving.treeBlobId) : null;
    if (!serving || !tree)
      throw new ConflictError('summary_index_not_built', `Agent '${agentId}' has no summary index yet`);
    return {
      agentId,
      buildId: serving.buildId,
      model: serving.model,
      builtAt: serving.builtAt,
      rootId: tree.rootId,
      levels: tree.levels,
      leafCount: tree.leafCount,
      nodes: tree.nodes.map(({ embedding: _embedding, key: _key, ...node }) => node),
    };
  }

  private async requestBuild(agent: AgentView, full: boolean, caller: Caller) {
    // The Agent's own chat model writes the summaries; the instance's default when it has none.
    const own = agent.model ? this.gateway.registry.get(agent.model) : undefined;
    const model = own?.kind === 'chat' ? own : this.gateway.registry.defaultModel('chat');
    if (!model)
      throw new ConflictError('no_chat_model', 'no chat model is configured to write the summaries');
    await this.execute(
      { type: 'RequestSummaryBuild', agentId: agent.id, buildId: newId('sumb'), full, model: model.key },
      caller,
    );
    return toStatus(agent.id, await this.summaries.index(agent.id));
  }

  private async execute(command: SummaryIndexCommand, caller: Caller): Promise<void> {
    const result = await this.commandBus.execute<ExecuteSummaryIndexCommand, WriteResult>(
      new ExecuteSummaryIndexCommand(command, commandContext(caller)),
    );
    await this.consistency.settle(result.position, [SUMMARY_INDEX_PROJECTION]);
  }
}
