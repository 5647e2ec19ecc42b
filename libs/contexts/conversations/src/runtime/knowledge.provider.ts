// The Knowledge context provider: the passages the existing hybrid search finds for the user's message, over every
// level the Agent reaches (its own, its Space's, Global; Ready documents only), numbered as sources in the prompt;
// and the `search_knowledge` tool, with which the model searches again with a query of its own. Each source carries
// what provenance needs (document version and content hash) from the documents read model, kept per document until
// the knowledge projection applies a batch in this process (ProjectionCache; not kept where another process runs it),
// so a search whose documents were cited before reads nothing more.
import { Inject, Injectable, Optional } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ProjectionCache, ProjectionRunner } from '#eventsourcing';
import { DOCUMENTS_READ_MODEL, SearchKnowledge, SearchKnowledgeInTurn, type DocumentView } from '#knowledge';
import { formatSourcesBlock, formatToolSources } from './grounding.js';
import { READ_STORE, type ReadStore } from '#read-store';
import { countTokens } from '#tokenizer';
import type {
  ContextContribution,
  ContextProvider,
  ContextTool,
  ReplayedContribution,
  ToolOutcome,
  TurnContext,
} from './context-providers.js';
import { toPromptSource, type RetrievedSource } from './source-book.js';

/** Passages searched per retrieval (the first one and each tool call). */
const PASSAGES = 8;
const QUERY_CHARS = 2000;

/** How a retrieval searches (a live turn's; a regression replay may search with another). */
export interface Retrieval {
  readonly mode: 'hybrid' | 'bm25' | 'vector';
  readonly limit: number;
  readonly rerank: boolean;
}
const LIVE_RETRIEVAL: Retrieval = { mode: 'hybrid', limit: PASSAGES, rerank: false };

@Injectable()
export class KnowledgeContextProvider implements ContextProvider {
  readonly name = 'knowledge';
  readonly share = 0.5;
  private readonly documents: ProjectionCache<DocumentView>;

  constructor(
    private readonly queries: QueryBus,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Optional() runner?: ProjectionRunner,
  ) {
    this.documents = new ProjectionCache(runner, DOCUMENTS_READ_MODEL.projection, { remoteTtlMs: 0 });
  }

  async contribute(turn: TurnContext): Promise<ContextContribution | null> {
    if (!turn.agent.knowledgeEnabled) return null;
    // The turn's first search, as it starts: the gate has just admitted its caller to the Agent (UseAgent).
    const retrieved = await this.retrieve(turn, turn.query, LIVE_RETRIEVAL, { admitted: true });
    const sources = turn.sources.add(fitting(retrieved, turn.tokenShare));
    return { system: formatSourcesBlock(sources.map(toPromptSource)), tools: [this.searchTool] };
  }

  /** A replay re-sends the turn's sources (recorded, or searched again by the replay) and offers the search tool. */
  async replay(turn: TurnContext): Promise<ReplayedContribution> {
    return {
      system: formatSourcesBlock(turn.sources.numbered().map(toPromptSource)),
      tools: turn.agent.knowledgeEnabled ? [this.searchTool] : [],
      missing: [],
    };
  }

  private readonly searchTool: ContextTool = {
    definition: {
      type: 'function',
      function: {
        name: 'search_knowledge',
        description:
          "Search the Agent's Knowledge again with a query of your own. Returns more numbered sources; cite them " +
          'by number like the others.',
        parameters: {
          type: 'object',
          properties: { query: { type: 'string', description: 'What to search for' } },
          required: ['query'],
          additionalProperties: false,
        },
      },
    },
    run: async (args: unknown, turn: TurnContext): Promise<ToolOutcome> => {
      const query =
        typeof args === 'object' && args !== null && typeof (args as { query?: unknown }).query === 'string'
          ? (args as { query: string }).query.trim()
          : '';
      if (query.length === 0)
        return { content: 'search_knowledge needs a non-empty "query" string.', ok: false, sources: [] };
      const added = turn.sources.add(fitting(await this.retrieve(turn, query), turn.tokenShare));
      return {
        content: formatToolSources(added.map(toPromptSource)),
        ok: true,
        sources: added.map((source) => source.index),
      };
    },
  };

  /**
   * Passages searched for `query` with the turn's caller, each with its document's version and content hash (as
   * provenance records them); a replay's search serves no conversation and is recorded under `replay`. `admitted`:
   * the live turn's first search, sent as the turn starts, for the Agent its UseAgent has just admitted the caller to
   * (SearchKnowledgeInTurn: not asked twice); every other search (a tool call later in the turn, a replay) is asked.
   */
  async retrieve(
    turn: TurnContext,
    query: string,
    retrieval: Retrieval = LIVE_RETRIEVAL,
    { admitted = false }: { readonly admitted?: boolean } = {},
  ): Promise<RetrievedSource[]> {
    const body = { query: query.slice(0, QUERY_CHARS), ...retrieval };
    const live = { conversationId: turn.conversationId, signal: turn.signal };
    const answer = await this.queries.execute(
      turn.operation === 'replay'
        ? new SearchKnowledge(turn.agent.id, body, turn.caller, { operation: 'replay', signal: turn.signal })
        : admitted
          ? new SearchKnowledgeInTurn(turn.agent, body, turn.caller, live)
          : new SearchKnowledge(turn.agent.id, body, turn.caller, live),
    );
    if (answer.summary)
      turn.sources.summary = {
        nodeId: answer.summary.nodeId,
        level: answer.summary.level,
        text: answer.summary.text,
        documentIds: answer.summary.documentIds,
      };
    const ids = [...new Set(answer.hits.map((hit) => hit.documentId))];
    const reader = this.readStore.reader<DocumentView>(DOCUMENTS_READ_MODEL.name);
    const documents = new Map<string, DocumentView>();
    for (const document of await Promise.all(
      ids.map((id) => this.documents.get(id, async () => (await reader.get(id)) ?? undefined)),
    ))
      if (document) documents.set(document.id, document);
    return answer.hits.flatMap((hit) => {
      const document = documents.get(hit.documentId);
      if (!document) return []; // deleted between the search and now: not a source
      return [
        {
          documentId: hit.documentId,
          documentName: hit.documentName,
          documentVersion: document.version,
          contentHash: document.contentHash,
          sectionPath: hit.sectionPath,
          start: hit.start,
          end: hit.end,
          score: hit.score,
          text: hit.text,
        },
      ];
    });
  }
}

/** Tokens counted per source beside its passage (its number, document name and section path in the block). */
const SOURCE_OVERHEAD = 16;

/**
 * The best-ranked sources whose passages fit the provider's token share (at least one, cut to the share). A token
 * covers at least one UTF-8 byte, so when the passages' bytes fit, all of them fit and none is counted: counting
 * eight passages with the BPE encoder took a few milliseconds of each turn.
 */
export function fitting<T extends { readonly text: string }>(sources: readonly T[], share: number): T[] {
  let bytes = 0;
  for (const source of sources) bytes += Buffer.byteLength(source.text, 'utf8') + SOURCE_OVERHEAD;
  if (bytes <= share) return [...sources];
  const kept: T[] = [];
  let used = 0;
  for (const source of sources) {
    const tokens = countTokens(source.text) + SOURCE_OVERHEAD;
    if (kept.length > 0 && used + tokens > share) break;
    kept.push(source);
    used += tokens;
  }
  return kept;
}
