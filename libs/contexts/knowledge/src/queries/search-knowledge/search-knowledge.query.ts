// Grounded passages for a question, from every level the Agent can reach and only from Ready documents: BM25 and
// vector similarity fused by reciprocal rank fusion, optionally re-ordered by the reranker. Each hit cites its
// document, section path and offsets; with `includeAiSummary`, the closest section summary comes along.
// Two messages run it: SearchKnowledge (the route's, a turn's tool calls', a regression replay's), and
// SearchKnowledgeInTurn, a live turn's first retrieval, for the Agent the turn's own gate has just admitted.
import { Inject, Injectable } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { callerScope, ModelGateway } from '#model-gateway';
import { AskedAtRoute, Requires, type Caller } from '#access';
import type { AgentView } from '#agents';
import { ConflictError } from '#kernel';
import { SEARCH_INDEX, type SearchIndex } from '#search';
import { LIVE_INDEX_ALIAS } from '../../pipeline/index-aliases.js';
import { KnowledgeReads } from '../../knowledge-reads.js';
import { KnowledgeResolver } from '../../knowledge-resolver.js';
import type { SearchBody, SearchResultDto } from '../../knowledge.schemas.js';
import { SummarySearch } from '../../summary/summary-search.js';
import { visibleOwners } from '../../visible-owners.js';

interface SearchAnswer {
  readonly query: string;
  readonly hits: Omit<z.output<typeof SearchResultDto>['hits'][number], never>[];
  readonly summary?: Awaited<ReturnType<SummarySearch['match']>>;
}

@Requires(KnowledgeResolver, (knowledge, { agentId }: SearchKnowledge) => knowledge.use(agentId))
export class SearchKnowledge extends Query<SearchAnswer> {
  constructor(
    readonly agentId: string,
    readonly body: z.output<typeof SearchBody>,
    readonly caller: Caller,
    /**
     * A conversation turn's retrieval: its usage is attributed to the conversation, and it ends with the turn. A
     * regression replay's (`operation: 'replay'`, no conversation: it serves none) is recorded under `replay`.
     */
    readonly turn?:
      | { readonly conversationId: string; readonly signal: AbortSignal }
      | { readonly operation: 'replay'; readonly signal: AbortSignal },
  ) {
    super();
  }
}

/** A live turn's retrieval: its usage is attributed to the conversation, and it ends with the turn. */
interface TurnRetrieval {
  readonly conversationId: string;
  readonly signal: AbortSignal;
}

/**
 * A live conversation turn's first search, sent as the turn starts, for the Agent the turn holds. The turn sent
 * UseAgent for this Agent with this caller just before, which asked `agent.use` exactly as SearchKnowledge's
 * declaration does (agentToUse): asking again read the Agent and its Space once more per turn. Later searches of the
 * turn (its tool calls) send SearchKnowledge and are asked again.
 */
@AskedAtRoute(
  'no route sends it: only a conversation turn, for the Agent the gate admitted to the same caller (UseAgent)',
)
export class SearchKnowledgeInTurn extends Query<SearchAnswer> {
  constructor(
    /** The Agent as the turn's UseAgent answered it. */
    readonly agent: AgentView,
    readonly body: z.output<typeof SearchBody>,
    readonly caller: Caller,
    readonly turn: TurnRetrieval,
  ) {
    super();
  }
}

/** The search both messages run, once the Agent is known. */
@Injectable()
export class KnowledgeSearch {
  constructor(
    private readonly knowledge: KnowledgeReads,
    @Inject(SEARCH_INDEX) private readonly search: SearchIndex,
    private readonly gateway: ModelGateway,
    private readonly summaries: SummarySearch,
  ) {}

  async run(
    agent: AgentView,
    body: z.output<typeof SearchBody>,
    caller: Caller,
    turn: SearchKnowledge['turn'],
  ): Promise<SearchAnswer> {
    const agentId = agent.id;
    if (!agent.knowledgeEnabled)
      throw new ConflictError('knowledge_disabled', `Agent '${agentId}' has its Knowledge Base turned off`);
    if (body.tagIds) await this.knowledge.requireTags(agent, body.tagIds);
    const index = await this.search.liveIndex(LIVE_INDEX_ALIAS);
    if (!index) return { query: body.query, hits: [], ...(agent.includeAiSummary ? { summary: null } : {}) };
    const scope = {
      ...callerScope(caller, 'core', agentId),
      ...(turn && 'conversationId' in turn ? { conversationId: turn.conversationId } : {}),
      ...(turn && 'operation' in turn ? { operation: turn.operation } : {}),
    };
    const signal = turn
      ? AbortSignal.any([turn.signal, AbortSignal.timeout(30_000)])
      : AbortSignal.timeout(30_000);
    // The query is embedded while the index starts its BM25 leg (a large index ranks it in a thread of its own).
    const embedding: Promise<number[]> =
      body.mode === 'bm25' && !agent.includeAiSummary
        ? Promise.resolve([])
        : this.gateway
            .embed(scope, this.gateway.registry.defaultModel('embedding')!, [body.query], signal)
            .then((embedded) => embedded.vectors[0]!);
    // Awaited by the search (or below); a search that fails first leaves it handled.
    embedding.catch(() => undefined);
    let hits = await this.search.search(index, {
      text: body.query,
      embedding: body.mode === 'bm25' ? [] : embedding,
      ownerIds: visibleOwners(agent),
      ...(body.tagIds ? { tagIds: body.tagIds } : {}),
      limit: body.limit,
      mode: body.mode,
    });
    let scores = hits.map((hit) => hit.score);
    if (body.rerank && hits.length > 1) {
      const reranked = await this.gateway.rerank(
        scope,
        this.gateway.registry.reranker(),
        body.query,
        hits.map((hit) => hit.text),
        signal,
      );
      const order = reranked.scores.map((score, i) => ({ score, i })).sort((a, b) => b.score - a.score);
      hits = order.map(({ i }) => hits[i]!);
      scores = order.map(({ score }) => score);
    }
    return {
      query: body.query,
      hits: hits.map((hit, i) => ({
        documentId: hit.documentId,
        documentName: hit.documentName,
        sectionPath: hit.sectionPath,
        start: hit.start,
        end: hit.end,
        text: hit.text,
        score: scores[i]!,
      })),
      ...(agent.includeAiSummary ? { summary: await this.summaries.match(agent, await embedding) } : {}),
    };
  }
}

@QueryHandler(SearchKnowledge)
export class SearchKnowledgeHandler implements IQueryHandler<SearchKnowledge> {
  constructor(
    private readonly knowledge: KnowledgeReads,
    private readonly searches: KnowledgeSearch,
  ) {}

  async execute({ agentId, body, caller, turn }: SearchKnowledge): Promise<SearchAnswer> {
    return this.searches.run(await this.knowledge.agent(agentId), body, caller, turn);
  }
}

@QueryHandler(SearchKnowledgeInTurn)
export class SearchKnowledgeInTurnHandler implements IQueryHandler<SearchKnowledgeInTurn> {
  constructor(private readonly searches: KnowledgeSearch) {}

  execute({ agent, body, caller, turn }: SearchKnowledgeInTurn): Promise<SearchAnswer> {
    return this.searches.run(agent, body, caller, turn);
  }
}
