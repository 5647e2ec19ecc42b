// The Memory context provider. Before the answer it recalls the relevant memories (the user's personal ones and the
// Agent's shared ones, by similarity to the message and recency, within its token share) into the prompt, and lists
// them (id and version) for the answer's provenance; then it asks the Agent's model for candidate facts in the user's
// message (the fixed prompt of memory-extraction.ts, recorded as usage; in a streamed turn once the answer's own
// request is sent, turn.answerAsked) while the answer is being written: only the user is a source, so the extraction
// does not wait for the answer (it used to, and a turn waited for two model calls one after the other). After a
// complete answer it records the recall (recency, and which answers used a memory), then takes the extraction's
// candidates, screens each, drops those already remembered or recalled, and saves them: personal ones at once,
// agent-wide ones as a proposal to the user (when the Agent shares memories). A turn that ends without a complete
// answer abandons its extraction (aborted: nothing is kept).
// Nothing of this runs for public Agents, incognito conversations or API-driven streamed turns (memory-rules.ts).
// Over 300 lines on purpose: recall before the answer and extraction after it share one turn's state (the
// extraction starts while the answer is written).
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import {
  agentChatModel,
  type AnsweredTurn,
  type ContextContribution,
  type ContextItem,
  type ContextProvider,
  type ReplayedContribution,
  type TurnContext,
  type TurnNotice,
} from '#conversations';
import { callerScope, ModelGateway, type CallScope } from '#model-gateway';
import type { ChatResult } from '#model-providers';
import { ReadYourWritesBus } from '#eventsourcing';
import { commandContext } from '#access';
import { newId } from '#kernel';
import {
  KeepExtractedMemories,
  type ExtractedMemory,
} from './commands/keep-extracted-memories/keep-extracted-memories.command.js';
import { RecordMemoryRecall } from './commands/record-memory-recall/record-memory-recall.command.js';
import { formatMemoriesBlock } from './memories-block.js';
import { extractionMessages, memoryTextKey, parseCandidates } from './memory-extraction.js';
import { countTokens } from '#tokenizer';
import { MemoryEmbeddings } from './memory-embeddings.js';
import { proposalsLimitedMessage } from './memory-proposal.decider.js';
import { cosine, memoryApplies, sharedMemoryApplies } from './memory-rules.js';
import { SHARED_OWNER } from './memory.events.js';
import { MemoryScreening } from './memory-screening.js';
import { PROVENANCE_USES_READ_MODEL } from '#audit';
import { MEMORY_READ_MODELS } from './memory.read-model.js';
import { MemoryReader, type PlainMemory, type ProposalRate } from './memory.reader.js';
import { FLAGGED_MESSAGE } from './screening/memory-screen.js';

/**
 * What the turn's memory writes wait for: the memories (a recall's recency, what extraction kept) and the provenance
 * read model, where the memory routes' `…/answers` read the answer that used them (the recall is recorded after it).
 */
const TURN_READ_MODELS = [...MEMORY_READ_MODELS, PROVENANCE_USES_READ_MODEL];

/** At or above: the same fact as one remembered already (not stored again). */
const DUPLICATE = 0.9;
/** At or above (and below DUPLICATE): the same subject, said differently: the newer statement supersedes it. */
const SUPERSEDES = 0.75;
/** Recency's weight beside similarity when ranking what to recall. */
const RECENCY_WEIGHT = 0.1;
const EXTRACTION_TIMEOUT_MS = 60_000;
/** What a turn keeps from its contribution until its answer: what it recalled and its extraction under way. */
interface TurnMemory {
  readonly recalled: PlainMemory[];
  readonly extraction: Promise<ChatResult>;
  readonly abort: AbortController;
}

export interface MemoryNotice {
  readonly saved: readonly { id: string; bucket: 'personal' | 'shared'; text: string }[];
  readonly proposals: readonly { id: string; text: string }[];
  /** Exactly `Memory not saved - flagged as unsafe.` when screening refused a candidate. */
  readonly flagged: string | null;
  /** Present only when a team fact was not proposed: the user reached MEMORY_PROPOSALS_PER_HOUR on this Agent. */
  readonly proposalsLimited?: string;
}

@Injectable()
export class MemoryContextProvider implements ContextProvider {
  readonly name = 'memory';
  readonly share = 0.15;

  /** What each turn recalled and its extraction, until its answer is recorded (keyed by the user's message id). */
  private readonly turns = new Map<string, TurnMemory>();

  constructor(
    private readonly reader: MemoryReader,
    private readonly bus: CommandBus,
    private readonly writes: ReadYourWritesBus,
    private readonly embeddings: MemoryEmbeddings,
    private readonly screening: MemoryScreening,
    private readonly gateway: ModelGateway,
  ) {}

  async contribute(turn: TurnContext): Promise<ContextContribution | null> {
    if (!memoryApplies(this.memoryTurn(turn))) return null;
    const memories = await this.reader.memories(turn.agent.id, this.owners(turn));
    if (memories.length === 0) {
      this.extract(turn, []);
      return null;
    }
    const [query, ...vectors] = await this.embeddings.embed(
      this.scope(turn),
      [turn.query.slice(0, 2000), ...memories.map((memory) => memory.text)],
      turn.signal,
      [null, ...memories.map((memory) => `${memory.id}:${memory.version}`)],
    );
    const newest = Math.max(...memories.map((memory) => Date.parse(memory.lastUsedAt)));
    const oldest = Math.min(...memories.map((memory) => Date.parse(memory.lastUsedAt)));
    const ranked = memories
      .map((memory, i) => ({
        memory,
        score:
          cosine(query!, vectors[i]!) +
          RECENCY_WEIGHT *
            (newest === oldest ? 1 : (Date.parse(memory.lastUsedAt) - oldest) / (newest - oldest)),
      }))
      .sort((a, b) => b.score - a.score);
    const chosen: PlainMemory[] = [];
    let used = 0;
    for (const { memory } of ranked) {
      const tokens = countTokens(memory.text) + 6;
      if (used + tokens > turn.tokenShare) break;
      chosen.push(memory);
      used += tokens;
    }
    this.extract(turn, chosen);
    if (chosen.length === 0) return null;
    return {
      system: formatMemoriesBlock(chosen.map((memory) => ({ bucket: memory.bucket, text: memory.text }))),
      tools: [],
      items: chosen.map((memory) => ({ kind: 'memory', id: memory.id, version: memory.version })),
    };
  }

  /**
   * A replay re-sends the memories the recorded turn recalled, each at the version it had then (from the memory's
   * version history, opened with its key), in the recorded order. A memory deleted since (its document gone, its key
   * destroyed) or whose key is destroyed is not re-sent: it is named in `missing`, with why.
   */
  async replay(_turn: TurnContext, items: readonly ContextItem[]): Promise<ReplayedContribution | null> {
    const recalled = items.filter((item) => item.kind === 'memory');
    if (recalled.length === 0) return null;
    const memories: { bucket: 'personal' | 'shared'; text: string }[] = [];
    const missing: string[] = [];
    for (const item of recalled) {
      const name = `memory:${item.id}@${item.version}`;
      const view = await this.reader.memory(item.id);
      const version = view?.versions.find((known) => known.version === item.version);
      if (!view || !version) {
        missing.push(`${name} (erased: the memory was deleted)`);
        continue;
      }
      const text = await this.reader.text(version.text);
      if (text === null) missing.push(`${name} (erased: its key was destroyed)`);
      else memories.push({ bucket: view.bucket, text });
    }
    return {
      system: memories.length > 0 ? formatMemoriesBlock(memories) : null,
      tools: [],
      missing,
    };
  }

  /** The turn has ended: an extraction no afterAnswer claimed is aborted and forgotten. */
  abandon(turn: TurnContext): void {
    this.claim(turn)?.abort.abort();
  }

  // Over 100 lines on purpose: the after-answer steps (record recall, screen, dedupe, save or propose) share
  // the turn's state.
  async afterAnswer(turn: TurnContext, answered: AnsweredTurn): Promise<TurnNotice | null> {
    const kept = this.claim(turn);
    if (!memoryApplies(this.memoryTurn(turn)) || answered.status !== 'complete') {
      kept?.abort.abort();
      return null;
    }
    // Started with the turn (extract); when the client left just after a complete answer (the turn's signal abandoned
    // it), it starts now, as it did after the answer before.
    const { recalled, extraction: extracting } = kept ?? this.extraction(turn, []);
    // Awaited below, after the recall is recorded (whatever the extraction's outcome).
    extracting.catch(() => undefined);
    const context = commandContext(turn.caller);
    const conversation = { conversationId: turn.conversationId, messageId: answered.answerId };
    const owners = [...new Set(recalled.map((memory) => memory.owner))];
    const signal = AbortSignal.timeout(EXTRACTION_TIMEOUT_MS);
    // The recall follows the answer in the log (the memory routes' …/answers read the answer that used them); with
    // nothing recalled there is nothing to record.
    await answered.recorded;
    let { position } =
      owners.length === 0
        ? { position: 0 }
        : await this.bus.execute(
            new RecordMemoryRecall(
              turn.agent.id,
              owners.map((owner) => ({
                owner,
                memoryIds: recalled.filter((memory) => memory.owner === owner).map((memory) => memory.id),
              })),
              { ...conversation, userId: turn.caller.userId },
              context,
            ),
          );
    const extraction = await extracting;
    const candidates = parseCandidates(extraction.message.content);
    const notice = {
      saved: [] as MemoryNotice['saved'][number][],
      proposals: [] as MemoryNotice['proposals'][number][],
      flagged: null as string | null,
      proposalsLimited: undefined as string | undefined,
    };
    let proposalRate: ProposalRate | undefined;
    if (candidates.length === 0) {
      if (position) await this.writes.settle(position, TURN_READ_MODELS);
      return null;
    }
    const source = { kind: 'extraction' as const, ...conversation, messageId: turn.messageId };
    const userId = turn.caller.userId;
    const known = await this.reader.memories(turn.agent.id, this.owners(turn));
    const knownVectors = await this.embeddings.embed(
      this.scope(turn),
      known.map((memory) => memory.text),
      signal,
      known.map((memory) => `${memory.id}:${memory.version}`),
    );
    const extracted: ExtractedMemory[] = [];
    const recalledKeys = new Set(recalled.map((memory) => memoryTextKey(memory.text)));
    for (const candidate of candidates) {
      const verdict = await this.screening.screen(candidate.text, this.scope(turn), signal);
      if (verdict.flagged) {
        extracted.push({ kind: 'flagged', reasons: verdict.reasons });
        notice.flagged = FLAGGED_MESSAGE;
        continue;
      }
      if (recalledKeys.has(memoryTextKey(candidate.text))) continue;
      const [vector] = await this.embeddings.embed(this.scope(turn), [candidate.text], signal);
      const closest = known
        .map((memory, i) => ({ memory, similarity: cosine(vector!, knownVectors[i]!) }))
        .sort((a, b) => b.similarity - a.similarity)[0];
      if (closest && closest.similarity >= DUPLICATE) continue;
      const shared = candidate.scope === 'agent' && sharedMemoryApplies(turn.agent);
      if (
        closest &&
        // A personal fact supersedes the user's own memory it contradicts; a team fact goes through a proposal.
        !shared &&
        closest.similarity >= SUPERSEDES &&
        closest.memory.bucket === 'personal'
      ) {
        extracted.push({
          kind: 'superseded',
          owner: closest.memory.owner,
          memoryId: closest.memory.id,
          text: candidate.text,
        });
        notice.saved.push({ id: closest.memory.id, bucket: closest.memory.bucket, text: candidate.text });
        continue;
      }
      if (shared) {
        // Proposals per user per Agent per hour are limited: beyond it the fact is not proposed (the turn answers).
        proposalRate ??= await this.reader.proposalRate(turn.agent.id, userId, 'proposed');
        if (proposalRate.count + notice.proposals.length >= proposalRate.limit) {
          notice.proposalsLimited = proposalsLimitedMessage(
            proposalRate.limit,
            proposalRate.retryAfterSeconds,
          );
          continue;
        }
        const proposalId = newId('prop');
        extracted.push({ kind: 'proposed', proposalId, text: candidate.text });
        notice.proposals.push({ id: proposalId, text: candidate.text });
        continue;
      }
      const memoryId = newId('mem');
      extracted.push({ kind: 'added', memoryId, text: candidate.text });
      notice.saved.push({ id: memoryId, bucket: 'personal', text: candidate.text });
    }
    if (extracted.length > 0) {
      const kept = await this.bus.execute(
        new KeepExtractedMemories(
          turn.agent.id,
          userId,
          source,
          { conversationId: turn.conversationId, messageId: turn.messageId },
          extracted,
          context,
        ),
      );
      position = kept.position || position;
    }
    if (position) await this.writes.settle(position, TURN_READ_MODELS);
    const { proposalsLimited, ...rest } = notice;
    if (rest.saved.length === 0 && rest.proposals.length === 0 && rest.flagged === null && !proposalsLimited)
      return null;
    const value: MemoryNotice = proposalsLimited ? { ...rest, proposalsLimited } : rest;
    return { field: 'memory', value };
  }

  /**
   * Starts the turn's extraction (the user's message and what is remembered already) and keeps it with what the turn
   * recalled until the answer (afterAnswer) or the turn's end (abandon; at once when the turn's signal aborts: the
   * client left, the message was not posted).
   */
  private extract(turn: TurnContext, recalled: PlainMemory[]): void {
    const kept = this.extraction(turn, recalled);
    this.turns.set(turn.messageId, kept);
    if (turn.signal.aborted) this.abandon(turn);
    else turn.signal.addEventListener('abort', () => this.abandon(turn), { once: true });
    // Awaited by afterAnswer; an abandoned one fails unseen.
    kept.extraction.catch(() => undefined);
  }

  /** The turn's kept recall and extraction, no longer kept. */
  private claim(turn: TurnContext): TurnMemory | undefined {
    const kept = this.turns.get(turn.messageId);
    this.turns.delete(turn.messageId);
    return kept;
  }

  /**
   * The extraction's model call, sent once the turn allows (turn.answerAsked: in a streamed turn, after the answer's):
   * it runs beside the answer without holding it up. A turn abandoned before then sends none.
   */
  private extraction(turn: TurnContext, recalled: PlainMemory[]): TurnMemory {
    const abort = new AbortController();
    const extraction = turn.answerAsked.then(() => {
      abort.signal.throwIfAborted();
      return this.gateway.chat(
        this.scope(turn),
        agentChatModel(this.gateway, turn.agent, undefined),
        {
          messages: extractionMessages(
            turn.query,
            recalled.map((memory) => memory.text),
          ),
          max_completion_tokens: 600,
        },
        AbortSignal.any([abort.signal, AbortSignal.timeout(EXTRACTION_TIMEOUT_MS)]),
        'memory_extraction',
      );
    });
    return { recalled, extraction, abort };
  }

  private owners(turn: TurnContext): string[] {
    return [turn.caller.userId, ...(sharedMemoryApplies(turn.agent) ? [SHARED_OWNER] : [])];
  }

  private scope(turn: TurnContext): CallScope {
    return { ...callerScope(turn.caller, 'core', turn.agent.id), conversationId: turn.conversationId };
  }

  private memoryTurn(turn: TurnContext) {
    return {
      agent: turn.agent,
      keepsTraces: turn.keepsTraces,
      streamed: turn.streamed,
      userId: turn.caller.userId,
    };
  }
}
