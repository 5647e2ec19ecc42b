// How a turn's context is assembled: a list of context providers, each adding a system section within its token
// share and, optionally, tools the model may call. Knowledge is the first; Memory and Skills plug in beside it
// (ContextProviders is the list other contexts add to), and the answer's provenance names the providers that contributed and
// the versioned items they put in the prompt. A provider may also act once the answer is recorded (memory extraction).
import { Injectable } from '@nestjs/common';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { AgentView } from '#agents';
import type { Caller } from '#access';
import type { ProvenanceItem } from '../conversation.events.js';
import type { SourceBook } from './source-book.js';
import type { ToolCallSession } from './tool-call-session.js';
import type { ToolView } from './tool-view.js';

export type { ToolView } from './tool-view.js';

/** What a provider knows of the turn it contributes to. */
export interface TurnContext {
  readonly agent: AgentView;
  readonly caller: Caller;
  readonly conversationId: string;
  /** The user's new message: what retrieval searches for. */
  readonly query: string;
  /** The user's message being answered. */
  readonly messageId: string;
  /** The answer's id (the assistant message this turn records). */
  readonly answerId: string;
  readonly visibility: 'normal' | 'private' | 'incognito';
  /**
   * Whether the turn may leave anything that outlives its conversation's place (memories, a code sandbox): its place
   * says (false for an incognito conversation). Providers ask this, not the kind of conversation.
   */
  readonly keepsTraces: boolean;
  /**
   * An API-driven streamed turn (spec: memory is not applied to those; they stay a raw model call with Knowledge). A
   * streamed turn of a signed-in person (the web app's chat) is not one.
   */
  readonly streamed: boolean;
  /**
   * The usage operation the turn's model calls are recorded under — its answer, tool steps and the retrieval they do:
   * `conversation` (left out), or `replay` for a regression replay (which serves no conversation).
   */
  readonly operation?: 'conversation' | 'replay';
  readonly signal: AbortSignal;
  /**
   * What a provider's own model call that can wait (memory extraction) waits for, so that it does not hold up the
   * answer's: in a streamed turn, the answer's request under way (its write to the connection done) or the turn gone
   * no further; settled from the start in a turn answered whole (its answer waits for that call too). Never rejects.
   */
  readonly answerAsked: Promise<void>;
  /** The numbered sources of this turn, shared by every provider and tool (citations are checked against it). */
  readonly sources: SourceBook;
  /** Tokens this provider's section may take. */
  readonly tokenShare: number;
  /** Records an item a tool brought into the turn (a Skill version it loaded): listed in the answer's provenance. */
  readonly recordItem: (item: ContextItem) => void;
}

export interface ToolOutcome {
  /** The call's id when it was recorded as events (an App's tool: tool-call-gate.ts). */
  readonly callId?: string;
  /** What the model reads as the tool's result. */
  readonly content: string;
  readonly ok: boolean;
  /** Numbers of the sources the call added to the turn. */
  readonly sources: readonly number[];
  /** The MCP App view the result renders in (an App tool's `_meta.ui.resourceUri`). */
  readonly view?: ToolView;
  /** The App acts in the person's name and they have not connected their account: the stream says where to. */
  readonly authRequired?: { readonly appId: string; readonly connectUrl: string };
}

export interface ContextTool {
  readonly definition: ChatCompletionFunctionTool;
  /** `ask`: each call waits for the approval of the person whose turn it is (tool-call-gate.ts); default `auto`. */
  readonly approval?: 'auto' | 'ask';
  /**
   * Each call is recorded as events of the conversation (requested, approved or denied, completed or failed), its
   * arguments and result sealed with the answer's key: an App's tools, whose calls act outside the platform.
   */
  readonly recorded?: boolean;
  /** `session`: a recorded tool's call, what it may ask of the turn while it runs (tool-call-session.ts). */
  run(args: unknown, turn: TurnContext, session?: ToolCallSession): Promise<ToolOutcome>;
}

/** A versioned item a provider put in the prompt (a memory, a Skill version): listed in the answer's provenance. */
export type ContextItem = ProvenanceItem;

export interface ContextContribution {
  /** A system message, or null when the provider has nothing to say this turn. */
  readonly system: string | null;
  readonly tools: readonly ContextTool[];
  readonly items?: readonly ContextItem[];
}

/** What a provider learns once the turn's answer is recorded. */
export interface AnsweredTurn {
  readonly answerId: string;
  readonly answer: string;
  readonly status: 'complete' | 'incomplete';
  /** The items this provider contributed to the prompt. */
  readonly items: readonly ContextItem[];
  /**
   * Settles once the answer is recorded in the log (rejects when recording it failed): the providers' work starts
   * while it is recorded (memory extraction's model call), and whatever they write waits for it.
   */
  readonly recorded: Promise<void>;
}

/** What a provider tells the client after the answer: a field of the message and, streamed, an event of that name. */
export interface TurnNotice {
  readonly field: string;
  readonly value: unknown;
}

/** What a provider re-sends when a recorded turn is replayed (see ContextProvider.replay). */
export interface ReplayedContribution {
  /** The section as the recorded turn's prompt held it, or null when nothing of it can be re-sent. */
  readonly system: string | null;
  /** Read-only tools the replay's tool loop offers (they append nothing to the log). */
  readonly tools: readonly ContextTool[];
  /** The recorded items that could not be re-sent, each with why (`memory:mem_1@2 (erased)`). */
  readonly missing: readonly string[];
}

export interface ContextProvider {
  /** Recorded in provenance (`knowledge`, later `memory`, `skills`). */
  readonly name: string;
  /** Share of the prompt budget this provider's section may use (0..1). */
  readonly share: number;
  contribute(turn: TurnContext): Promise<ContextContribution | null>;
  /**
   * For a regression replay (read-only): this provider's section rebuilt from what a recorded turn's answer recorded
   * (its items, opened with their keys; Knowledge: the turn's sources as `turn.sources` holds them), not searched or
   * chosen again, and the read-only tools a replay may offer (as of `recordedAt`, the time the question was asked,
   * when what they offer depends on it: the Skills available then). A provider without `replay` (code execution:
   * `run_code`) is not part of a replay.
   */
  replay?(
    turn: TurnContext,
    items: readonly ContextItem[],
    recordedAt: Date,
  ): Promise<ReplayedContribution | null>;
  /**
   * Runs for a complete answer while it is recorded (memory extraction); it writes nothing before `recorded` settles.
   * Its failure never fails the turn.
   */
  afterAnswer?(turn: TurnContext, answered: AnsweredTurn): Promise<TurnNotice | null>;
  /**
   * The turn has ended (called for every turn, after afterAnswer when that ran): the provider drops what it started for
   * the turn and no afterAnswer claimed (memory: its extraction's model call, aborted).
   */
  abandon?(turn: TurnContext): void;
}

/**
 * The providers a turn consults, in order (the order sources are numbered in): Knowledge first, then those other
 * contexts add when their module starts (Memory, Skills), so the conversations context never imports them.
 */
@Injectable()
export class ContextProviders {
  private readonly providers: ContextProvider[] = [];

  add(provider: ContextProvider): void {
    if (!this.providers.includes(provider)) this.providers.push(provider);
  }

  all(): readonly ContextProvider[] {
    return this.providers;
  }
}
