// Usage: every model call on either surface is a fact in the log, in one stream per API key and UTC day, so a key's
// spend in any window is a fold over a handful of short streams, and auditors can replay every call. The calls of a
// stream are recorded in batches, one event per batch (ModelCallsRecorded); older logs hold one event per call
// (ModelCallRecorded), which every reader still folds.
import { derivedTimedEventId, type DomainEvent } from '#kernel';

/**
 * Where a call came in: `compat` is the compatible API's chat completions (and its embeddings and rerank),
 * `compat-responses` and `compat-messages` its Responses and Anthropic Messages routes (added later: older events
 * have only `compat` and `core`), `core` the core LLM endpoints and the platform's own calls.
 */
export const SURFACES = ['compat', 'compat-responses', 'compat-messages', 'core'] as const;
export type Surface = (typeof SURFACES)[number];

export const OPERATIONS = [
  'chat',
  'embeddings',
  'rerank',
  'generateText',
  'generateObject',
  'generateImage',
  /** Speech synthesis and transcription (Agents' and Apps' audio). */
  'generateSpeech',
  'transcribe',
  /** A model call of an Agent conversation's turn (the answer and its tool steps). */
  'conversation',
  /** Summarising a conversation's oldest part into a checkpoint. */
  'compaction',
  /** Extracting candidate memories from a conversation turn. */
  'memory_extraction',
  /** The optional classifier that screens memory candidates for prompt injection. */
  'memory_screening',
  /** A recorded turn re-run against another model or retrieval configuration (`cli replay`): nothing is appended to conversations. */
  'replay',
  /** An MCP server's sampling request during an App tool call of a turn, served with the Agent's model. */
  'mcp_sampling',
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** How the call ended: answered, failed upstream or in validation of the output, or abandoned by the client. */
export type CallOutcome = 'completed' | 'failed' | 'aborted';

export interface ModelCall {
  /** Unique per call; the event id derives from it, so a retried append never records a call twice. */
  readonly callId: string;
  readonly apiKeyId: string;
  readonly userId: string;
  readonly agentId: string | null;
  /**
   * The Space the call served (its Agent's, or the Space of the Knowledge it embedded), which counts it toward the
   * Space's spend limit; absent for calls outside one (added later: older events lack it).
   */
  readonly spaceId?: string;
  /** The Agent conversation the call served; absent for calls outside one (added later: older events lack it). */
  readonly conversationId?: string;
  /** The model key the client used. */
  readonly model: string;
  readonly provider: string;
  readonly surface: Surface;
  readonly operation: Operation;
  readonly streamed: boolean;
  /** All input tokens, cached reads included. */
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  /** Input written to the upstream's prompt cache (counted in inputTokens); absent when none (and in older events). */
  readonly cacheWriteTokens?: number;
  readonly outputTokens: number;
  /** USD, from the model's pricing at the time of the call. */
  readonly costUsd: number;
  /** Covered by the instance's subscription (the model is configured `includedUsage`) rather than billable. */
  readonly isIncludedUsage: boolean;
  readonly latencyMs: number;
  readonly outcome: CallOutcome;
  /** True when the upstream reported no usage (a disconnect mid-stream) and tokens were counted here instead. */
  readonly estimated: boolean;
  readonly startedAt: string;
  /**
   * A call of a model with deployments or fallbacks: the model key that answered (a fallback's, or the one asked for)
   * and every try (which deployment, its outcome, its latency). Absent for other calls.
   */
  readonly servedBy?: string;
  readonly attempts?: readonly {
    readonly deployment: string;
    readonly model: string;
    readonly outcome: 'completed' | 'failed';
    /** The upstream's status, `timeout` or `unreachable`. */
    readonly error?: string;
    /** Why the upstream refused, when it said (rate_limit, overloaded, context_length, bad_request, auth). */
    readonly reason?: string;
    readonly latencyMs: number;
  }[];
  /** A streamed call: milliseconds from admission to the first piece of the answer. Absent otherwise. */
  readonly firstTokenMs?: number;
  /** A failed call without tries recorded: what failed (a reason, the upstream's status, timeout, unreachable). */
  readonly failure?: string;
}

/** A call inside a batch, with the correlation id of the request that made it (the event's metadata is the batch's). */
export interface BatchedModelCall extends ModelCall {
  readonly correlationId: string;
}

/** The calls of one API key and day recorded together, in the order they were queued. */
export interface ModelCallsRecorded {
  readonly calls: readonly BatchedModelCall[];
}

export type UsageEvent =
  /** One call per event: what older logs hold (before calls were recorded in batches). */
  DomainEvent<'ModelCallRecorded', ModelCall> | DomainEvent<'ModelCallsRecorded', ModelCallsRecorded>;

/** The calls a usage event records, whichever its type. */
export const callsOf = (event: UsageEvent): readonly ModelCall[] =>
  event.type === 'ModelCallsRecorded' ? event.data.calls : [event.data];

/** UTC day of an instant, `YYYY-MM-DD`. */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

export const usageStreamId = (apiKeyId: string, day: string): string => `usage-${apiKeyId}-${day}`;

/**
 * A batch's event id: derived from its first call, so a failed batch retried as it was (the UsageRecorder never
 * regroups one) records nothing twice; led by that call's start, so the batches' events sort by time in the event
 * store's index of ids (see derivedTimedEventId). Older per-call events derived theirs from ('model-call', callId).
 */
export const batchEventId = (first: Pick<ModelCall, 'callId' | 'startedAt'>): string =>
  derivedTimedEventId(Date.parse(first.startedAt), 'model-calls', first.callId);
