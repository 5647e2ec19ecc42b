// What a recorded tool (an App's) may ask of its turn while a call runs: tell its progress and log lines (streamed as
// `tool_progress` and `tool_log`, throttled and capped, never recorded: they are transient), have a model answer for
// it (MCP sampling: the Agent's model through the gateway, usage the person's under `mcp_sampling`, bounded, or
// refused by configuration), and ask the person a question (MCP elicitation: `tool_elicitation_required`, answered
// through POST …/elicitations/{elicitationId}; declined at once where no person follows the turn).
import { newId } from '#kernel';
import type { CallScope, ModelGateway } from '#model-gateway';
import type { ModelConfig } from '#model-providers';
import type { ApprovalOwner } from './tool-approvals.js';
import type { ElicitationAnswer, ElicitationCheck, ToolElicitations } from './tool-elicitations.js';
import type { TurnEmitter } from './turn-events.js';

export interface ToolProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** A model call a tool's server asks for, as plain text turns. */
export interface SamplingAsk {
  readonly system?: string;
  readonly messages: readonly { readonly role: 'user' | 'assistant'; readonly text: string }[];
  readonly maxTokens: number;
  readonly temperature?: number;
  readonly stopSequences?: readonly string[];
}

export interface SamplingAnswer {
  readonly text: string;
  /** The model that answered (the Agent's). */
  readonly model: string;
  readonly stopReason: 'endTurn' | 'maxTokens';
}

/** A sampling request the turn does not serve: `reason` is safe to send to the tool's server. */
export class SamplingRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'SamplingRefused';
  }
}

export interface ElicitationAsk {
  readonly message: string;
  readonly requestedSchema: Readonly<Record<string, unknown>>;
  /** Checks an accepted answer's content against the requested schema. */
  readonly check: ElicitationCheck;
}

export interface ToolCallSession {
  /** The call's id (the approval and elicitation routes', and the stream's `callId`). */
  readonly callId: string;
  progress(progress: ToolProgress): void;
  log(level: string, text: string): void;
  /** Throws SamplingRefused when the turn does not serve it. */
  sample(ask: SamplingAsk, signal: AbortSignal): Promise<SamplingAnswer>;
  elicit(ask: ElicitationAsk, signal: AbortSignal): Promise<ElicitationAnswer>;
}

export interface ToolCallSessionDeps {
  readonly emit: TurnEmitter;
  readonly owner: ApprovalOwner;
  readonly elicitations: ToolElicitations;
  /** How long a question waits for the person before it is answered `cancel`. */
  readonly timeoutMs: number;
  /** A person follows the turn as it streams: questions are asked; else they are declined at once. */
  readonly present: boolean;
  /** How sampling is served: the turn's model and scope, and the configured bounds. */
  readonly sampling: {
    readonly gateway: ModelGateway;
    readonly scope: CallScope;
    readonly model: ModelConfig;
    readonly enabled: boolean;
    readonly maxTokens: number;
    readonly maxRequestsPerCall: number;
  };
  readonly signal: AbortSignal;
}

/** At most 4 progress events a second per call; the last step (progress reaching total) always goes out. */
const PROGRESS_INTERVAL_MS = 250;
/** Log lines streamed per call, each at most this long: a chatty server cannot flood the stream. */
const MAX_LOG_LINES = 20;
const MAX_LOG_CHARS = 500;
const MAX_PROGRESS_MESSAGE_CHARS = 300;
/** MCP's levels from `info` up: `debug` is not shown. */
const SHOWN_LEVELS = new Set(['info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

/** The session of one call, and `end` (the call is over: nothing more is streamed for it). */
export function toolCallSession(
  deps: ToolCallSessionDeps,
  call: { readonly callId: string; readonly id: string },
): ToolCallSession & { end(): void } {
  const { callId, id } = call;
  let ended = false;
  let lastProgressAt = 0;
  let logLines = 0;
  let samples = 0;
  const tell = (event: Parameters<TurnEmitter>[0]) => {
    if (!ended) deps.emit(event).catch(() => undefined);
  };
  return {
    callId,
    end: () => {
      ended = true;
    },
    progress: ({ progress, total, message }) => {
      const now = Date.now();
      const last = total !== undefined && progress >= total;
      if (!last && now - lastProgressAt < PROGRESS_INTERVAL_MS) return;
      lastProgressAt = now;
      tell({
        event: 'tool_progress',
        data: {
          callId,
          id,
          progress,
          ...(total !== undefined ? { total } : {}),
          ...(message ? { message: message.slice(0, MAX_PROGRESS_MESSAGE_CHARS) } : {}),
        },
      });
    },
    log: (level, text) => {
      if (!SHOWN_LEVELS.has(level) || logLines >= MAX_LOG_LINES) return;
      logLines++;
      tell({ event: 'tool_log', data: { callId, id, level, text: text.slice(0, MAX_LOG_CHARS) } });
    },
    sample: async (ask, signal) => {
      const { sampling } = deps;
      if (!sampling.enabled) throw new SamplingRefused('sampling is switched off on this platform');
      if (samples >= sampling.maxRequestsPerCall)
        throw new SamplingRefused(
          `a tool call may make at most ${sampling.maxRequestsPerCall} sampling requests`,
        );
      samples++;
      const result = await sampling.gateway.chat(
        sampling.scope,
        sampling.model,
        {
          messages: [
            ...(ask.system ? [{ role: 'system' as const, content: ask.system }] : []),
            ...ask.messages.map(({ role, text }) => ({ role, content: text })),
          ],
          max_tokens: Math.min(Math.max(1, ask.maxTokens), sampling.maxTokens),
          ...(ask.temperature !== undefined ? { temperature: ask.temperature } : {}),
          ...(ask.stopSequences?.length ? { stop: [...ask.stopSequences].slice(0, 4) } : {}),
        },
        AbortSignal.any([deps.signal, signal]),
        'mcp_sampling',
      );
      return {
        text: result.message.content ?? '',
        model: sampling.model.key,
        stopReason: result.finishReason === 'length' ? 'maxTokens' : 'endTurn',
      };
    },
    elicit: async (ask, signal) => {
      if (!deps.present || ended) return { action: 'decline' };
      const elicitationId = newId('eli');
      tell({
        event: 'tool_elicitation_required',
        data: { callId, id, elicitationId, message: ask.message, requestedSchema: ask.requestedSchema },
      });
      return deps.elicitations.wait(
        elicitationId,
        deps.owner,
        deps.timeoutMs,
        AbortSignal.any([deps.signal, signal]),
        ask.check,
      );
    },
  };
}
