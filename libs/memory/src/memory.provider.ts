// The Memory context provider. Before the answer it recalls the relevant memories (the user's personal ones and the
// Agent's shared ones, by similarity to the message and recency, within its token share) into the prompt, and lists
// them (id and version) for the answer's provenance. After a complete answer it records the recall (recency, and
// which answers used a memory), then extracts candidate facts with the Agent's model (the fixed prompt of
// memory-extraction.ts, recorded as usage), screens each, drops those already remembered or recalled, and
// saves them: personal ones at once, agent-wide ones as a proposal to the user (when the Agent shares memories).
// Nothing of this runs for public Agents, incognito conversations or API-driven streamed turns (memory-rules.ts).
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
import { ReadYourWritesBus } from '#eventsourcing';
import { commandContext } from '#identity';
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

  /** What each turn recalled, until its answer is recorded (keyed by the user's message id). */
  private readonly recalled = new Map<string, PlainMemory[]>();

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
    if (memories.length === 0) return null;
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
    if (chosen.length === 0) return null;
    this.recalled.set(turn.messageId, chosen);
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

  async afterAnswer(turn: TurnContext, answered: AnsweredTurn): Promise<TurnNotice | null> {
    const recalled = this.recalled.get(turn.messageId) ?? [];
    this.recalled.delete(turn.messageId);
    if (!memoryApplies(this.memoryTurn(turn)) || answered.status !== 'complete') return null;
    const context = commandContext(turn.caller);
    const conversation = { conversationId: turn.conversationId, messageId: answered.answerId };
    const owners = [...new Set(recalled.map((memory) => memory.owner))];
    // The extraction's model call needs only the question and the answer: it runs while the answer is recorded.
    const signal = AbortSignal.timeout(EXTRACTION_TIMEOUT_MS);
    const model = agentChatModel(this.gateway, turn.agent, undefined);
    const extracting = this.gateway.chat(
      this.scope(turn),
      model,
      {
        messages: extractionMessages(
          turn.query,
          answered.answer,
          recalled.map((memory) => memory.text),
        ),
        max_completion_tokens: 600,
      },
      signal,
      'memory_extraction',
    );
    // Awaited below, after the recall is recorded (as before, whatever the extraction's outcome).
    extracting.catch(() => undefined);
    // The recall follows the answer in the log (the memory routes' …/answers read the answer that used them).
    await answered.recorded;
    let { position } = await this.bus.execute(
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
