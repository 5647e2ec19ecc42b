// The span of one model attempt (one call to one deployment's upstream; a routed call makes one per try), named and
// described as the GenAI semantic conventions say: `chat {model}` (`embeddings {model}`, …), kind CLIENT, with the
// provider, the request's parameters, the usage, the finish reason and, on failure, `error.type`. The span is the
// active one while the provider works, so the upstream request carries its `traceparent`. Prompts and completions go
// in only when content capture is on. Without tracing, the attempt runs as it is and nothing here is built.
import { context, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { capturingContent, failSpan, SpanKind, startSpan, tracingOn } from '#kernel';
import {
  UpstreamError,
  type ChatDelta,
  type ChatRequest,
  type ChatResult,
  type ModelConfig,
  type TokenUsage,
} from '#model-providers';
import { deploymentOf } from './routing/deployment-router.js';
import { inputMessages, outputMessages } from './model-call-content.js';

/** `gen_ai.operation.name`: the conventions' names, and ours where they have none (rerank, speech, transcription). */
export type GenAiOperation =
  'chat' | 'embeddings' | 'rerank' | 'generate_content' | 'speech' | 'transcription';

/** `gen_ai.provider.name` of each provider type: the conventions' well-known values (ollama has none: its own). */
const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'gcp.gemini',
  azure: 'azure.ai.openai',
  bedrock: 'aws.bedrock',
  ollama: 'ollama',
};

/** What an attempt's span records of its answer. */
export interface AttemptOutcome {
  readonly usage?: TokenUsage;
  readonly finishReason?: string | null;
  /** The answer's text and tool calls (recorded only with content capture). */
  readonly output?: { readonly text: string; readonly toolCalls?: readonly unknown[] };
}

const servers = new Map<string, Attributes>();

/** `server.address` and `server.port` of a base URL, parsed once. */
function serverOf(baseUrl: string | undefined): Attributes {
  if (!baseUrl) return {};
  let server = servers.get(baseUrl);
  if (!server) {
    try {
      const url = new URL(baseUrl);
      const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
      server = { 'server.address': url.hostname, 'server.port': port };
    } catch {
      server = {};
    }
    if (servers.size >= 1000) servers.clear();
    servers.set(baseUrl, server);
  }
  return server;
}

/** The failure's `error.type`: the upstream's status, `timeout` or `unreachable`, else the error's code or class. */
function upstreamErrorType(error: unknown): string | undefined {
  if (!(error instanceof UpstreamError)) return undefined;
  if (error.upstreamStatus !== undefined) return String(error.upstreamStatus);
  return error.kind === 'timeout' ? 'timeout' : 'unreachable';
}

function startAttempt(
  operation: GenAiOperation,
  target: ModelConfig,
  request: ChatRequest | null,
  streamed: boolean,
): Span | null {
  const attributes: Attributes = {
    'gen_ai.operation.name': operation,
    'gen_ai.provider.name': PROVIDER_NAMES[target.providerType ?? ''] ?? target.provider,
    'gen_ai.request.model': target.modelId,
    'agent_platform.model': target.key,
    'agent_platform.deployment': deploymentOf(target),
    ...serverOf(target.baseUrl),
  };
  if (request) {
    attributes['gen_ai.request.stream'] = streamed;
    const maxTokens = request.max_completion_tokens ?? request.max_tokens;
    if (typeof maxTokens === 'number') attributes['gen_ai.request.max_tokens'] = maxTokens;
    if (typeof request.temperature === 'number')
      attributes['gen_ai.request.temperature'] = request.temperature;
    if (typeof request.top_p === 'number') attributes['gen_ai.request.top_p'] = request.top_p;
    if (capturingContent()) attributes['gen_ai.input.messages'] = inputMessages(request.messages);
  }
  return startSpan(`${operation} ${target.modelId}`, SpanKind.CLIENT, attributes);
}

function endAttempt(span: Span, target: ModelConfig, outcome: AttemptOutcome): void {
  // What the deployment that answered was asked for: upstreams' own echo of it is not kept by every provider type.
  span.setAttribute('gen_ai.response.model', target.modelId);
  if (outcome.finishReason) span.setAttribute('gen_ai.response.finish_reasons', [outcome.finishReason]);
  const usage = outcome.usage;
  if (usage) {
    span.setAttribute('gen_ai.usage.input_tokens', usage.inputTokens);
    span.setAttribute('gen_ai.usage.output_tokens', usage.outputTokens);
    if (usage.cachedInputTokens)
      span.setAttribute('gen_ai.usage.cache_read.input_tokens', usage.cachedInputTokens);
    if (usage.cacheWriteTokens)
      span.setAttribute('gen_ai.usage.cache_creation.input_tokens', usage.cacheWriteTokens);
  }
  if (outcome.output && capturingContent())
    span.setAttribute(
      'gen_ai.output.messages',
      outputMessages(outcome.output.text, outcome.output.toolCalls ?? [], outcome.finishReason ?? null),
    );
}

/** Runs one non-streamed attempt inside its span (the active one while the provider works). */
export async function tracedAttempt<T>(
  operation: GenAiOperation,
  target: ModelConfig,
  request: ChatRequest | null,
  run: () => Promise<T>,
  outcome: (result: T) => AttemptOutcome,
): Promise<T> {
  if (!tracingOn()) return run();
  const span = startAttempt(operation, target, request, false);
  if (!span) return run();
  try {
    const result = await context.with(trace.setSpan(context.active(), span), run);
    endAttempt(span, target, outcome(result));
    return result;
  } catch (error) {
    failSpan(span, error, upstreamErrorType(error));
    throw error;
  } finally {
    span.end();
  }
}

/**
 * A streamed attempt: the span starts now (a child of the active span) and ends with the stream, however it ends;
 * each read of the upstream runs inside it. `measure` reads each piece for its usage, finish reason and text.
 */
export function tracedStream<T>(
  operation: GenAiOperation,
  target: ModelConfig,
  request: ChatRequest | null,
  source: AsyncIterable<T>,
  measure: (piece: T) => { usage?: TokenUsage; finishReason?: string | null; text?: string },
): AsyncIterable<T> {
  if (!tracingOn()) return source;
  const span = startAttempt(operation, target, request, true);
  if (!span) return source;
  return streamInSpan(span, trace.setSpan(context.active(), span), target, source, measure);
}

async function* streamInSpan<T>(
  span: Span,
  active: Context,
  target: ModelConfig,
  source: AsyncIterable<T>,
  measure: (piece: T) => { usage?: TokenUsage; finishReason?: string | null; text?: string },
): AsyncIterable<T> {
  const pieces = source[Symbol.asyncIterator]();
  const started = performance.now();
  const keepText = capturingContent();
  let first = true;
  let text = '';
  let usage: TokenUsage | undefined;
  let finishReason: string | null | undefined;
  try {
    for (;;) {
      const next = await context.with(active, () => pieces.next());
      if (next.done) break;
      if (first) {
        first = false;
        span.setAttribute('gen_ai.response.time_to_first_chunk', (performance.now() - started) / 1000);
      }
      const seen = measure(next.value);
      if (seen.usage) usage = seen.usage;
      if (seen.finishReason) finishReason = seen.finishReason;
      if (keepText && seen.text) text += seen.text;
      yield next.value;
    }
    endAttempt(span, target, { usage, finishReason, ...(keepText ? { output: { text } } : {}) });
  } catch (error) {
    failSpan(span, error, upstreamErrorType(error));
    throw error;
  } finally {
    await pieces.return?.();
    span.end();
  }
}

/** What a chat answer tells its span. */
export const chatOutcome = (result: ChatResult): AttemptOutcome => ({
  usage: result.usage,
  finishReason: result.finishReason,
  output: {
    text: typeof result.message.content === 'string' ? result.message.content : '',
    toolCalls: result.message.tool_calls ?? [],
  },
});

/** What a streamed chat piece tells its span. */
export const chatDeltaOutcome = (delta: ChatDelta) => ({
  usage: delta.usage,
  finishReason: delta.finishReason,
  text: delta.delta.content ?? '',
});
