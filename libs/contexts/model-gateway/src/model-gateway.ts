// Every model call of the platform goes through here, whichever surface asked (the compatible gateway or the core
// LLM endpoints): resolve the model, admit the call against the key's, the user's and the Space's usage limits at once
// (a call made for an Agent of a Space, or for the Space's Knowledge, counts toward the Space; one choke
// point for every path: compat chat streamed or not, embeddings, rerank, turns and their tool steps, memory
// extraction, compaction, generate endpoints, bridge), call the provider with the
// caller's abort signal, map upstream failures to clear errors, and record the call's usage (also for streams that
// end early, whose tokens are then counted here).
// Over 300 lines on purpose: the one hot path of every model call (chat, stream, embeddings, rerank, image), kept in
// one place so that admission, abort, error mapping and usage recording cannot drift apart between call kinds.
import { Inject, Injectable } from '@nestjs/common';
import { newId, PLATFORM_CONFIG, PlatformError, ValidationError, type PlatformConfig } from '#kernel';
import {
  ModelRegistry,
  ModelProviders,
  kindWithArticle,
  type ModelConfig,
  type ModelKind,
  UpstreamError,
  reasonOfStatus,
  type ChatDelta,
  type ChatRequest,
  type ChatResult,
  type EmbeddingInput,
  type EmbeddingResult,
  type ImageRequest,
  type ImageResult,
  type RerankResult,
  type SpeechRequest,
  type SpeechResult,
  type TranscriptionRequest,
  type TranscriptionResult,
  type ModelProvider,
  type ResponsesEvent,
  type ResponsesPayload,
  type TokenUsage,
  runOffline,
} from '#model-providers';
import { countTokens } from '#tokenizer';
import {
  callCost,
  SpendLimits,
  UsageLimiter,
  UserSpendLimiter,
  type Reservation,
  type UsageEstimate,
  UsageRecorder,
} from '#usage';
import type { CallOutcome, Operation, Surface } from '#usage';
import type { CallerKey, Caller } from '#access';
import { StreamedText } from './streamed-text.js';
import { DeploymentRouter, errorOf, RoutedCallFailed, type Attempt } from './routing/deployment-router.js';
import {
  chatDeltaOutcome,
  chatOutcome,
  tracedAttempt,
  tracedStream,
  type GenAiOperation,
} from './model-call-span.js';

/** Who a call is for: usage is attributed to the key, its user and the Agent (core surface). */
export interface CallScope {
  readonly apiKey: CallerKey;
  readonly userId: string;
  readonly agentId: string | null;
  readonly surface: Surface;
  readonly correlationId: string;
  /** The Agent conversation the call serves (its turn, tool steps, retrieval and compaction). */
  readonly conversationId?: string;
  /**
   * The Space the call serves, for its spend limit: the Space of a Space's Knowledge (no Agent). Left out, it is the
   * Agent's Space when there is an Agent.
   */
  readonly spaceId?: string | null;
  /**
   * The operation every call of this scope is recorded under, whatever its kind (a regression replay's chat,
   * embedding and rerank calls: `replay`); left out, each call's own (`chat`, `embeddings`, `rerank`, …).
   */
  readonly operation?: Operation;
}

/** A call made for an authenticated caller: usage goes to its key and user, and to the Agent when there is one. */
export const callerScope = (caller: Caller, surface: Surface, agentId: string | null = null): CallScope => ({
  apiKey: caller.apiKey,
  userId: caller.userId,
  agentId,
  surface,
  correlationId: caller.correlationId,
});

/**
 * The scope of a direct model call (the compatible gateway: no Agent). Who may call models directly (`model.call`: API
 * keys and admins) the guard asked from the compatible routes' rows before the request got here: nothing is read.
 */
export const directCallScope = (caller: Caller, surface: Surface): CallScope => callerScope(caller, surface);

export class ModelNotFoundError extends PlatformError {
  constructor(message: string) {
    super('not_found', 'model_not_found', message, 'model');
  }
}

/** Output tokens assumed for a reservation when the request sets no maximum. */
const DEFAULT_OUTPUT_ESTIMATE = 256;
const MAX_OUTPUT_ESTIMATE = 4096;
const NOTHING_EXPECTED: UsageEstimate = { tokens: 0, costUsd: 0, certain: { tokens: 0, costUsd: 0 } };
const inputOnlyEstimate = (tokens: number): UsageEstimate => ({
  tokens,
  costUsd: 0,
  certain: { tokens, costUsd: 0 },
});
const NO_USAGE: TokenUsage = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
const inputOnly = (result: { inputTokens: number }): TokenUsage => ({
  inputTokens: result.inputTokens,
  cachedInputTokens: 0,
  outputTokens: 0,
});

interface CallInProgress {
  /** A routed call: the model that served it (priced as that model) and every try, recorded with the call. */
  routed(served: ModelConfig | null, attempts: readonly Attempt[]): void;
  /** The first piece of a streamed answer is on its way (its time is the call's time to first token). */
  firstPiece(): void;
  /**
   * `error`: what failed, for a failed call. `usage` may be given as a function: it is then asked when the call is
   * recorded, a moment after its answer has gone on, unless a limit or the router needs the count at once (CountedLater).
   */
  end(outcome: CallOutcome, usage: TokenUsage | CountedLater, estimated: boolean, error?: unknown): void;
}

/**
 * A call's usage counted when it is recorded: the offline embedding model's count of a question's tokens (≈0.07 ms
 * inside a turn, measured: its words are new to the tokenizer) then comes after the turn's retrieval, not before its
 * vector leg. A count that fails there is recorded as no usage rather than thrown from a timer.
 */
type CountedLater = () => TokenUsage;

const countedAtLast = (usage: CountedLater): TokenUsage => {
  try {
    return usage();
  } catch {
    return NO_USAGE;
  }
};

const charged = (usage: TokenUsage, pricing: ModelConfig['pricing']) => ({
  usage,
  costUsd: callCost(pricing, usage),
});

/**
 * The call's usage and cost now when a limit holding a reservation or the router needs them (a count that throws then
 * leaves the call to be ended as failed); null when nothing needs them before the call is recorded.
 */
const chargedNow = (given: TokenUsage | CountedLater, pricing: ModelConfig['pricing'], needed: boolean) =>
  typeof given !== 'function' ? charged(given, pricing) : needed ? charged(given(), pricing) : null;

/** What failed, as a usage event names it: the reason the upstream gave, else its status, `timeout` or `unreachable`. */
const failureOf = (error: unknown): string =>
  (error instanceof UpstreamError ? (error.reason ?? reasonOfStatus(error.upstreamStatus)) : undefined) ??
  errorOf(error);

/** A usage event's token counts (cache writes only when there were some). */
const tokenFields = (usage: TokenUsage) => ({
  inputTokens: usage.inputTokens,
  cachedInputTokens: usage.cachedInputTokens,
  ...(usage.cacheWriteTokens ? { cacheWriteTokens: usage.cacheWriteTokens } : {}),
  outputTokens: usage.outputTokens,
});

/** What a usage event says of the tries: the model that served and every try, the first piece's time, what failed. */
const triesFields = (
  served: ModelConfig,
  tries: readonly Attempt[] | undefined,
  firstPieceMs: number | undefined,
  failed: unknown,
) => ({
  ...(tries ? { servedBy: served.key, attempts: tries } : {}),
  ...(firstPieceMs !== undefined ? { firstTokenMs: firstPieceMs } : {}),
  ...(!tries && failed !== undefined ? { failure: failureOf(failed) } : {}),
});

/** Maps a provider failure to the gateway's errors; the upstream's own message is never passed on (it may quote keys). */
export function toGatewayError(error: unknown, model: ModelConfig, signal: AbortSignal): unknown {
  if (error instanceof PlatformError) return error;
  if (signal.aborted) return new PlatformError('cancelled', 'client_closed_request', 'the client went away');
  if (!(error instanceof UpstreamError)) return error;
  if (error.kind === 'timeout')
    return new PlatformError('upstream_timeout', 'upstream_timeout', error.message);
  const reason = error.reason ?? reasonOfStatus(error.upstreamStatus);
  if (reason === 'rate_limit')
    return new PlatformError(
      'rate_limited',
      'upstream_rate_limited',
      `the upstream of model '${model.key}' is rate limiting; retry later`,
    );
  if (reason === 'overloaded')
    return new PlatformError(
      'unavailable',
      'upstream_overloaded',
      `the upstream of model '${model.key}' is overloaded; retry later`,
    );
  if (reason === 'context_length')
    return new PlatformError(
      'validation',
      'context_length_exceeded',
      `the request is longer than model '${model.key}' reads at once (its upstream refused it); send less`,
    );
  if (reason === 'bad_request')
    return new PlatformError(
      'validation',
      'upstream_rejected_request',
      `the upstream of model '${model.key}' rejected the request (status ${error.upstreamStatus ?? 400})${error.detail ? `: ${error.detail}` : ''}`,
    );
  return new PlatformError('upstream_failed', 'upstream_error', error.message);
}

@Injectable()
export class ModelGateway {
  constructor(
    readonly registry: ModelRegistry,
    private readonly providers: ModelProviders,
    private readonly recorder: UsageRecorder,
    private readonly limiter: UsageLimiter,
    private readonly spend: UserSpendLimiter,
    private readonly limits: SpendLimits,
    @Inject(PLATFORM_CONFIG) config: PlatformConfig,
  ) {
    this.router = new DeploymentRouter(registry, config.router);
  }

  /** Spreads the calls of models with deployments or fallbacks and moves them off failing upstreams. */
  readonly router: DeploymentRouter;

  /** The configured model of that key and kind, or 404 `model_not_found`. */
  resolve(key: string, kind: ModelKind): ModelConfig {
    const model = this.registry.get(key);
    if (!model || model.kind !== kind)
      throw new ModelNotFoundError(
        model
          ? `model '${key}' is ${kindWithArticle(model.kind)} model, not ${kindWithArticle(kind)} model`
          : `model '${key}' is not configured on this instance`,
      );
    return model;
  }

  /** The configured reranker; any other key is 404 `model_not_found` (spec: "POST /rerank"). */
  resolveReranker(key: string): ModelConfig {
    const reranker = this.registry.reranker();
    if (key !== reranker.key)
      throw new ModelNotFoundError(`model '${key}' is not this instance's reranker (use '${reranker.key}')`);
    return reranker;
  }

  async chat(
    scope: CallScope,
    model: ModelConfig,
    request: ChatRequest,
    signal: AbortSignal,
    operation: Operation = 'chat',
  ): Promise<ChatResult> {
    const call = await this.begin(scope, model, operation, false, () => chatEstimate(model, request));
    const answer = (target: ModelConfig) =>
      tracedAttempt(
        'chat',
        target,
        request,
        () => this.providers.for(target).chat(target, request, signal),
        chatOutcome,
      );
    return this.complete(
      call,
      model,
      signal,
      () => (DeploymentRouter.routes(model) ? this.routed(call, model, signal, answer) : answer(model)),
      (result) => result.usage,
    );
  }

  /** A routed call's first success; the tries are told to the call, the last failure thrown as it came. */
  private async routed<T>(
    call: CallInProgress,
    model: ModelConfig,
    signal: AbortSignal,
    attempt: (target: ModelConfig) => Promise<T>,
  ): Promise<T> {
    try {
      const { value, served, attempts } = await this.router.run(model, signal, attempt);
      call.routed(served, attempts);
      return value;
    } catch (error) {
      if (!(error instanceof RoutedCallFailed)) throw error;
      call.routed(null, error.attempts);
      throw error.last;
    }
  }

  /**
   * Admits the call (a 429 is thrown here, before anything is streamed) and returns its deltas. Usage is recorded
   * when the stream ends, however it ends; without usage from the upstream (the client left), tokens are counted here.
   */
  async chatStream(
    scope: CallScope,
    model: ModelConfig,
    request: ChatRequest,
    signal: AbortSignal,
    operation: Operation = 'chat',
  ): Promise<AsyncIterable<ChatDelta>> {
    const call = await this.begin(scope, model, operation, true, () => chatEstimate(model, request));
    if (DeploymentRouter.routes(model)) {
      // A streamed call moves to another deployment only before its first delta reaches the client: the first one is
      // awaited here, inside the router.
      let opened: { rest: AsyncIterator<ChatDelta>; first: IteratorResult<ChatDelta> };
      try {
        opened = await this.routed(call, model, signal, async (target) => {
          const rest = tracedStream(
            'chat',
            target,
            request,
            this.providers.for(target).chatStream(target, request, signal),
            chatDeltaOutcome,
          )[Symbol.asyncIterator]();
          return { rest, first: await rest.next() };
        });
      } catch (error) {
        call.end(signal.aborted ? 'aborted' : 'failed', NO_USAGE, false, error);
        throw toGatewayError(error, model, signal);
      }
      return metered(call, model, request, signal, resumed(opened.first, opened.rest), chatDeltaText);
    }
    const provider = this.providers.for(model);
    const deltas = tracedStream(
      'chat',
      model,
      request,
      provider.chatStream(model, request, signal),
      chatDeltaOutcome,
    );
    return metered(call, model, request, signal, deltas, chatDeltaText);
  }

  /**
   * A Responses request passed to an upstream that speaks it (a model configured `api: responses`), on the same
   * path as chat: `request` is its translation to chat completions, which sizes the limit's reservation.
   */
  async responses(
    scope: CallScope,
    model: ModelConfig,
    body: ResponsesPayload,
    request: ChatRequest,
    signal: AbortSignal,
  ): Promise<ResponsesPayload> {
    const provider = this.nativeResponses(model);
    const call = await this.begin(scope, model, 'chat', false, () => chatEstimate(model, request));
    return this.complete(
      call,
      model,
      signal,
      () => provider.responses!(model, body, signal),
      (answer) => responsesUsage(answer.usage),
      { operation: 'chat', request },
    );
  }

  /** The streamed form of `responses`: the upstream's events, recorded however the stream ends. */
  async responsesStream(
    scope: CallScope,
    model: ModelConfig,
    body: ResponsesPayload,
    request: ChatRequest,
    signal: AbortSignal,
  ): Promise<AsyncIterable<ResponsesEvent>> {
    const provider = this.nativeResponses(model);
    const call = await this.begin(scope, model, 'chat', true, () => chatEstimate(model, request));
    return metered(
      call,
      model,
      request,
      signal,
      tracedStream(
        'chat',
        model,
        request,
        provider.responsesStream!(model, body, signal),
        responsesEventText,
      ),
      responsesEventText,
    );
  }

  private nativeResponses(model: ModelConfig): ModelProvider {
    const provider = this.providers.for(model);
    if (model.api !== 'responses' || !provider.responses || !provider.responsesStream)
      throw new PlatformError(
        'upstream_failed',
        'upstream_error',
        `model '${model.key}' is not configured to speak the Responses API`,
      );
    return provider;
  }

  async embed(
    scope: CallScope,
    model: ModelConfig,
    inputs: readonly EmbeddingInput[],
    signal: AbortSignal,
  ): Promise<EmbeddingResult> {
    // Embeddings are not limited by the key's limit (Knowledge ingestion depends on them; spec: key limits cover chat
    // and rerank), but by the user's weekly limit: their input counts.
    const call = await this.begin(scope, model, 'embeddings', false, null, () => embeddingEstimate(inputs));
    const provider = this.providers.for(model);
    return this.complete(call, model, signal, () => provider.embed(model, inputs, signal), inputOnly, {
      operation: 'embeddings',
    });
  }

  async rerank(
    scope: CallScope,
    model: ModelConfig,
    query: string,
    documents: readonly string[],
    signal: AbortSignal,
  ): Promise<RerankResult> {
    const call = await this.begin(scope, model, 'rerank', false, async () =>
      inputOnlyEstimate(
        await runOffline<number>({ op: 'countText', text: [query, ...documents].join('\n') }),
      ),
    );
    const provider = this.providers.for(model);
    return this.complete(
      call,
      model,
      signal,
      () => provider.rerank(model, query, documents, signal),
      inputOnly,
      { operation: 'rerank' },
    );
  }

  async image(
    scope: CallScope,
    model: ModelConfig,
    request: ImageRequest,
    signal: AbortSignal,
  ): Promise<ImageResult> {
    const promptTokens = () => countTokens(request.prompt);
    const call = await this.begin(scope, model, 'generateImage', false, async () =>
      inputOnlyEstimate(promptTokens()),
    );
    const provider = this.providers.for(model);
    return this.complete(
      call,
      model,
      signal,
      () => provider.image(model, request, signal),
      () => ({ inputTokens: promptTokens(), cachedInputTokens: 0, outputTokens: 0 }),
      { operation: 'generate_content' },
    );
  }

  /** Speech synthesis through the model's provider (usage: the text's tokens as input). */
  async speech(
    scope: CallScope,
    model: ModelConfig,
    request: SpeechRequest,
    signal: AbortSignal,
  ): Promise<SpeechResult> {
    const provider = this.providers.for(model);
    if (!provider.speech)
      throw new ValidationError(
        'speech_unsupported',
        `model '${model.key}' cannot synthesize speech`,
        'model',
      );
    const textTokens = () => countTokens(request.text);
    const call = await this.begin(scope, model, 'generateSpeech', false, async () =>
      inputOnlyEstimate(textTokens()),
    );
    return this.complete(
      call,
      model,
      signal,
      () => provider.speech!(model, request, signal),
      () => ({ inputTokens: textTokens(), cachedInputTokens: 0, outputTokens: 0 }),
      { operation: 'speech' },
    );
  }

  /** Transcription through the model's provider (usage: the transcript's tokens as output). */
  async transcribe(
    scope: CallScope,
    model: ModelConfig,
    request: TranscriptionRequest,
    signal: AbortSignal,
  ): Promise<TranscriptionResult> {
    const provider = this.providers.for(model);
    if (!provider.transcribe)
      throw new ValidationError(
        'transcription_unsupported',
        `model '${model.key}' cannot transcribe`,
        'model',
      );
    const call = await this.begin(scope, model, 'transcribe', false, null);
    return this.complete(
      call,
      model,
      signal,
      () => provider.transcribe!(model, request, signal),
      (result) => ({ inputTokens: 0, cachedInputTokens: 0, outputTokens: countTokens(result.text) }),
      { operation: 'transcription' },
    );
  }

  /**
   * Runs a non-streamed provider call: records its usage however it ends and maps its failure. `traced`: the call is
   * one model attempt, in its span (a routed chat traces each of its attempts itself).
   */
  private async complete<T>(
    call: CallInProgress,
    model: ModelConfig,
    signal: AbortSignal,
    run: () => Promise<T>,
    usage: (result: T) => TokenUsage,
    traced?: { readonly operation: GenAiOperation; readonly request?: ChatRequest },
  ): Promise<T> {
    try {
      const result = await (traced
        ? tracedAttempt(traced.operation, model, traced.request ?? null, run, (done) => ({
            usage: usage(done),
          }))
        : run());
      call.end('completed', () => usage(result), false);
      return result;
    } catch (error) {
      call.end(signal.aborted ? 'aborted' : 'failed', NO_USAGE, false, error);
      throw toGatewayError(error, model, signal);
    }
  }

  /**
   * Admits a call and returns how to end it (settle the limits, record usage): against the key's limit when `estimate`
   * is given, and always against the user's and (for a call serving a Space) the Space's weekly limits
   * (`spent + reserved + estimate ≤ limit`; `userEstimate` for calls the key's limit does not cover, else `estimate`;
   * nothing expected when neither is known beforehand). Every limit applies: none skips another, and a refusal by one
   * releases what the others reserved.
   */
  private async begin(
    scope: CallScope,
    model: ModelConfig,
    operation: Operation,
    streamed: boolean,
    estimate: (() => Promise<UsageEstimate>) | null,
    userEstimate: (() => Promise<UsageEstimate>) | null = estimate,
  ): Promise<CallInProgress> {
    const spaceId =
      scope.spaceId !== undefined
        ? scope.spaceId
        : scope.agentId
          ? await this.limits.spaceOfAgent(scope.agentId)
          : null;
    const userLimit = await this.spend.limitOf(scope.userId);
    const spaceLimit = spaceId ? await this.spend.spaceLimitOf(spaceId) : null;
    const weekly = userLimit !== null || spaceLimit !== null;
    const expected =
      estimate && (scope.apiKey.usageLimit || (weekly && userEstimate === estimate))
        ? await estimate()
        : NOTHING_EXPECTED;
    const reservation: Reservation | null = estimate
      ? await this.limiter.reserve(scope.apiKey, scope.apiKey.usageLimit ? expected : NOTHING_EXPECTED)
      : null;
    const reservations: Reservation[] = [];
    if (weekly)
      try {
        const forWeek =
          userEstimate === estimate ? expected : userEstimate ? await userEstimate() : NOTHING_EXPECTED;
        const amount = { tokens: forWeek.tokens, costUsd: forWeek.costUsd };
        const now = new Date();
        if (userLimit)
          reservations.push(
            await this.spend.reserveFor({ scope: 'user', id: scope.userId }, amount, now, userLimit),
          );
        if (spaceId && spaceLimit)
          reservations.push(
            await this.spend.reserveFor({ scope: 'space', id: spaceId }, amount, now, spaceLimit),
          );
      } catch (error) {
        for (const held of [reservation, ...reservations]) held?.settle({ tokens: 0, costUsd: 0 });
        throw error;
      }
    const startedAt = new Date();
    const started = performance.now();
    let ended = false;
    let served = model;
    let tries: readonly Attempt[] | undefined;
    let firstPieceMs: number | undefined;
    return {
      routed: (by, attempts) => {
        if (by) served = by;
        tries = attempts;
      },
      firstPiece: () => {
        firstPieceMs ??= Math.round((performance.now() - started) * 10) / 10;
      },
      end: (outcome: CallOutcome, given: TokenUsage | CountedLater, estimated: boolean, error?: unknown) => {
        if (ended) return;
        const now = chargedNow(given, served.pricing, Boolean(tries || reservation || reservations.length));
        ended = true;
        if (now) {
          const tokens = now.usage.inputTokens + now.usage.outputTokens;
          if (tries) this.router.spent(served, tokens);
          const spent = { tokens, costUsd: served.includedUsage ? 0 : now.costUsd };
          reservation?.settle(spent);
          for (const held of reservations) held.settle(spent);
        }
        const latencyMs = Math.round((performance.now() - started) * 10) / 10;
        // Recorded a moment later, once the answer is on its way (setImmediate runs after pending I/O).
        setImmediate(() => {
          const { usage, costUsd } = now ?? charged(countedAtLast(given as CountedLater), served.pricing);
          this.recorder.record(
            {
              callId: newId('call'),
              apiKeyId: scope.apiKey.id,
              userId: scope.userId,
              agentId: scope.agentId,
              ...(scope.conversationId ? { conversationId: scope.conversationId } : {}),
              ...(spaceId ? { spaceId } : {}),
              model: model.key,
              provider: model.provider,
              surface: scope.surface,
              operation: scope.operation ?? operation,
              streamed,
              ...tokenFields(usage),
              costUsd,
              isIncludedUsage: served.includedUsage,
              ...triesFields(served, tries, firstPieceMs, outcome === 'failed' ? error : undefined),
              latencyMs,
              outcome,
              estimated,
              startedAt: startedAt.toISOString(),
            },
            scope.correlationId,
          );
        });
      },
    };
  }
}

/** What a streamed piece adds to the output (its usage, when it carries the call's), to count a stream cut short. */
interface Metered {
  readonly usage?: TokenUsage;
  readonly text: string;
}

const chatDeltaText = (delta: ChatDelta): Metered => {
  let text = delta.delta.content ?? '';
  for (const toolCall of delta.delta.tool_calls ?? [])
    text += (toolCall.function?.name ?? '') + (toolCall.function?.arguments ?? '');
  return delta.usage ? { usage: delta.usage, text } : { text };
};

const responsesUsage = (usage: unknown): TokenUsage => {
  const wire = usage as
    | { input_tokens?: number; output_tokens?: number; input_tokens_details?: { cached_tokens?: number } }
    | null
    | undefined;
  return {
    inputTokens: wire?.input_tokens ?? 0,
    cachedInputTokens: wire?.input_tokens_details?.cached_tokens ?? 0,
    outputTokens: wire?.output_tokens ?? 0,
  };
};

const responsesEventText = (event: ResponsesEvent): Metered => {
  if (event.type === 'response.output_text.delta' || event.type === 'response.function_call_arguments.delta')
    return { text: typeof event.delta === 'string' ? event.delta : '' };
  const response = event.response as { usage?: unknown } | undefined;
  return (event.type === 'response.completed' || event.type === 'response.incomplete') && response?.usage
    ? { usage: responsesUsage(response.usage), text: '' }
    : { text: '' };
};

/**
 * Passes a provider's stream through and ends the call however the stream ends (completed, failed, or cut by the
 * client); without usage from the upstream, the tokens are counted here and marked estimated. An iterator of its own,
 * not an async generator: a generator's `for await` and `yield` cost promises and microtasks on every piece of every
 * stream, where this adds one `then` to the source's own promise.
 */
function metered<T>(
  call: CallInProgress,
  model: ModelConfig,
  request: ChatRequest,
  signal: AbortSignal,
  source: AsyncIterable<T>,
  measure: (piece: T) => Metered,
): AsyncIterableIterator<T> {
  const pieces = source[Symbol.asyncIterator]();
  const output = new StreamedText();
  let usage: TokenUsage | undefined;
  let ended: Promise<void> | undefined;
  const end = (outcome: CallOutcome, failure?: unknown): Promise<void> =>
    (ended ??= (async () => {
      const estimated = usage === undefined;
      call.end(
        outcome,
        usage ?? {
          inputTokens: await countInputTokens(request),
          cachedInputTokens: 0,
          outputTokens: await runOffline<number>({ op: 'countText', text: output.text() }),
        },
        estimated,
        failure,
      );
    })());
  const seen = (next: IteratorResult<T>): IteratorResult<T> | Promise<IteratorResult<T>> => {
    if (next.done) return end(signal.aborted ? 'aborted' : 'completed').then(() => next);
    call.firstPiece();
    const measured = measure(next.value);
    if (measured.usage) usage = measured.usage;
    output.add(measured.text);
    return next;
  };
  const failed = (error: unknown): Promise<never> =>
    end(signal.aborted ? 'aborted' : 'failed', error).then(() => {
      throw toGatewayError(error, model, signal);
    });
  const stream: AsyncIterableIterator<T> = {
    [Symbol.asyncIterator]: () => stream,
    next: () => (ended ? ended.then(() => DONE) : pieces.next().then(seen, failed)),
    // The consumer stopped early (the client left, or it read what it needed): the source ends, then the call.
    return: async () => {
      if (!ended)
        try {
          await pieces.return?.();
        } finally {
          await end('aborted');
        }
      return DONE;
    },
  };
  return stream;
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

const countInputTokens = (request: ChatRequest): Promise<number> =>
  runOffline<number>({
    op: 'countMessages',
    messages: request.messages,
    tools: request.tools,
    toolChoice: request.tool_choice,
  });

/** The input of an embeddings call: its texts counted with the tokenizer, its token arrays by their length. */
async function embeddingEstimate(inputs: readonly EmbeddingInput[]): Promise<UsageEstimate> {
  const texts = inputs.filter((input): input is string => typeof input === 'string');
  const tokenIds = inputs.reduce((sum, input) => sum + (typeof input === 'string' ? 0 : input.length), 0);
  const counted = texts.length ? await runOffline<number>({ op: 'countText', text: texts.join('\n') }) : 0;
  return inputOnlyEstimate(counted + tokenIds);
}

/**
 * A reservation's estimate: the input counted with the tokenizer (a character-based guess undercounted CJK text
 * almost eightfold), plus the output allowance: `max_tokens` when given, else as long as the input within bounds.
 */
async function chatEstimate(model: ModelConfig, request: ChatRequest): Promise<UsageEstimate> {
  const inputTokens = await countInputTokens(request);
  const outputTokens =
    request.max_completion_tokens ??
    request.max_tokens ??
    Math.min(MAX_OUTPUT_ESTIMATE, Math.max(DEFAULT_OUTPUT_ESTIMATE, inputTokens));
  const cost = (output: number) =>
    model.includedUsage
      ? 0
      : callCost(model.pricing, { inputTokens, cachedInputTokens: 0, outputTokens: output });
  return {
    tokens: inputTokens + outputTokens,
    costUsd: cost(outputTokens),
    certain: { tokens: inputTokens, costUsd: cost(0) },
  };
}

/** A stream whose first result was already read (to route it before anything reached the client), whole again. */
async function* resumed<T>(first: IteratorResult<T>, rest: AsyncIterator<T>): AsyncIterable<T> {
  try {
    if (first.done) return;
    yield first.value;
    for (;;) {
      const next = await rest.next();
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await rest.return?.();
  }
}
