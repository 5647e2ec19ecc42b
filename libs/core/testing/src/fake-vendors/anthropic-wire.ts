// Anthropic's Messages wire for the fake Anthropic upstream (anthropic.ts): the checks the API makes of a request
// that tests depend on, the request read back in neutral terms, and the answer, its stream events and its error
// envelopes built as the API reference gives them (https://docs.anthropic.com/en/api/messages,
// /en/api/messages-streaming, /en/api/errors) and as `@anthropic-ai/sdk`'s types (resources/messages, shared) read them.
import type { IncomingHttpHeaders } from 'node:http';
import type { VendorFailure, VendorRequestView, VendorScript } from './vendor-upstream.js';

type Json = Record<string, unknown>;
type Block = Json & { type: string };

/** Anthropic's error statuses and types by neutral failure (https://docs.anthropic.com/en/api/errors). */
export const FAILURES: Readonly<Record<VendorFailure, { status: number; type: string; message: string }>> = {
  rate_limit: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Number of request tokens has exceeded your rate limit',
  },
  overloaded: { status: 529, type: 'overloaded_error', message: 'Overloaded' },
  context_length: {
    status: 400,
    type: 'invalid_request_error',
    message: 'prompt is too long: 250123 tokens > 200000 maximum',
  },
  bad_request: { status: 400, type: 'invalid_request_error', message: 'messages.0.content: Field required' },
  auth: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' },
};

export const errorEnvelope = (type: string, message: string, requestId: string) => ({
  type: 'error',
  error: { type, message },
  request_id: requestId,
});

/** Thrown by the request checks: answered as Anthropic's 400 `invalid_request_error`. */
export class InvalidRequest extends Error {}

const blocksOf = (content: unknown): Block[] =>
  typeof content === 'string'
    ? [{ type: 'text', text: content }]
    : Array.isArray(content)
      ? (content as Block[])
      : [];

const textOf = (blocks: readonly Block[]): string =>
  blocks
    .filter((block) => block.type === 'text')
    .map((block) => String(block.text))
    .join('\n');

const MEDIA_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** Every `cache_control` in the request (system, messages, blocks inside tool results, tools), checked as the API does. */
function cacheMarks(body: Json): number {
  const marked: unknown[] = [];
  const visit = (block: unknown) => {
    if (typeof block !== 'object' || block === null) return;
    if ('cache_control' in block) marked.push((block as Json).cache_control);
    const inner = (block as Json).content;
    if (Array.isArray(inner)) inner.forEach(visit);
  };
  blocksOf(body.system).forEach(visit);
  for (const message of (body.messages as Json[]) ?? []) blocksOf(message.content).forEach(visit);
  ((body.tools as Json[] | undefined) ?? []).forEach(visit);
  for (const mark of marked)
    if ((mark as Json | null)?.type !== 'ephemeral')
      throw new InvalidRequest("cache_control.type: Input should be 'ephemeral'");
  if (marked.length > 4)
    throw new InvalidRequest('A maximum of 4 blocks with cache_control may be provided. Found 5.');
  return marked.length;
}

/** The request's checks that the API makes (a test relying on one fails here as it would against Anthropic). */
function check(body: Json): void {
  if (typeof body.model !== 'string') throw new InvalidRequest('model: Field required');
  if (!Number.isInteger(body.max_tokens)) throw new InvalidRequest('max_tokens: Field required');
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) throw new InvalidRequest('messages: Field required');
  const temperature = body.temperature;
  if (typeof temperature === 'number' && (temperature < 0 || temperature > 1))
    throw new InvalidRequest('temperature: Input should be less than or equal to 1');
  (messages as Json[]).forEach((message, index) => {
    if (message.role !== 'user' && message.role !== 'assistant')
      throw new InvalidRequest(`messages.${index}.role: Input should be 'user' or 'assistant'`);
    for (const block of blocksOf(message.content)) {
      if (block.type === 'text' && !block.text)
        throw new InvalidRequest('text content blocks must be non-empty');
      const source = block.source as Json | undefined;
      if (block.type === 'image' && source?.type === 'base64' && !MEDIA_TYPES.has(String(source.media_type)))
        throw new InvalidRequest(`messages.${index}.content: image media_type is not supported`);
    }
    // Every tool_use is answered by a tool_result in the very next (user) message.
    const uses = blocksOf(message.content).filter((block) => block.type === 'tool_use');
    const next = blocksOf((messages as Json[])[index + 1]?.content);
    for (const use of uses)
      if (!next.some((block) => block.type === 'tool_result' && block.tool_use_id === use.id))
        throw new InvalidRequest(
          `messages.${index + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${String(use.id)}`,
        );
  });
}

/** Checks the request and reads it back in neutral terms. */
export function viewOf(body: Json, headers: IncomingHttpHeaders): VendorRequestView {
  check(body);
  const messages = body.messages as Json[];
  const users = messages
    .filter((message) => message.role === 'user')
    .map((message) => blocksOf(message.content));
  const system = blocksOf(body.system);
  return {
    model: body.model as string,
    stream: body.stream === true,
    ...(system.length ? { system: textOf(system) } : {}),
    userTexts: users.filter((blocks) => blocks.some((block) => block.type === 'text')).map(textOf),
    images: users.flat().flatMap((block) => {
      const source = block.source as Json | undefined;
      if (block.type !== 'image' || !source) return [];
      return source.type === 'base64'
        ? [{ mediaType: String(source.media_type), bytes: String(source.data).length }]
        : [{ mediaType: 'url', bytes: 0 }];
    }),
    tools: ((body.tools as Json[] | undefined) ?? []).map((tool) => String(tool.name)),
    toolResults: users
      .flat()
      .flatMap((block) =>
        block.type === 'tool_result'
          ? [{ callId: String(block.tool_use_id), text: textOf(blocksOf(block.content)) }]
          : [],
      ),
    ...(Array.isArray(body.stop_sequences) ? { stopSequences: body.stop_sequences as string[] } : {}),
    maxTokens: body.max_tokens as number,
    ...(typeof body.temperature === 'number' ? { temperature: body.temperature } : {}),
    cacheMarks: cacheMarks(body),
    headers: { ...headers },
  };
}

export interface Answer {
  readonly content: Block[];
  readonly stopReason: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';
  readonly stopSequence: string | null;
  readonly usage: {
    input_tokens: number;
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
    output_tokens: number;
  };
}

let toolIds = 0;

/** What the scripted model answers `view`: its text (cut at a stop sequence it contains) or its tool calls. */
export function answerOf(script: VendorScript, view: VendorRequestView): Answer {
  let text = script.text ?? `Echo: ${view.userTexts.at(-1) ?? ''}`;
  let stopSequence: string | null = null;
  for (const stop of view.stopSequences ?? [])
    if (text.includes(stop) && !script.toolCalls?.length) {
      text = text.slice(0, text.indexOf(stop));
      stopSequence = stop;
    }
  const content: Block[] = script.toolCalls?.length
    ? script.toolCalls.map((call) => ({
        type: 'tool_use',
        id: `toolu_fake${String(++toolIds).padStart(6, '0')}`,
        name: call.name,
        input: call.arguments,
      }))
    : [{ type: 'text', text }];
  const words = (value: string) => value.split(/\s+/).filter(Boolean).length;
  const input = script.usage?.input ?? words([view.system ?? '', ...view.userTexts].join(' ')) + 3;
  const read = script.usage?.cacheRead ?? 0;
  const written = script.usage?.cacheWrite ?? 0;
  return {
    content,
    stopReason: script.toolCalls?.length
      ? 'tool_use'
      : script.stop === 'length'
        ? 'max_tokens'
        : stopSequence !== null
          ? 'stop_sequence'
          : 'end_turn',
    stopSequence,
    usage: {
      input_tokens: input - read - written,
      cache_creation_input_tokens: written,
      cache_read_input_tokens: read,
      output_tokens: script.usage?.output ?? words(text) + 1,
    },
  };
}

const messageId = () => `msg_fake${Math.random().toString(36).slice(2, 12)}`;

/** The `message` object of a non-streamed answer. */
export function messageOf(model: string, answer: Answer): Json {
  return {
    id: messageId(),
    type: 'message',
    role: 'assistant',
    model,
    content: answer.content,
    stop_reason: answer.stopReason,
    stop_sequence: answer.stopSequence,
    usage: {
      ...answer.usage,
      cache_creation: {
        ephemeral_5m_input_tokens: answer.usage.cache_creation_input_tokens,
        ephemeral_1h_input_tokens: 0,
      },
      service_tier: 'standard',
    },
  };
}

/** The answer's stream events in order, as `[event name, data]`; an `error` event in place of the rest when asked. */
export function eventsOf(model: string, answer: Answer, errorMidStream?: string): [string, Json][] {
  const { output_tokens: output, ...input } = answer.usage;
  const events: [string, Json][] = [
    [
      'message_start',
      {
        message: {
          ...messageOf(model, answer),
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...input, output_tokens: 1 },
        },
      },
    ],
  ];
  answer.content.forEach((block, index) => {
    if (block.type === 'text') {
      events.push(['content_block_start', { index, content_block: { type: 'text', text: '' } }]);
      if (index === 0) events.push(['ping', {}]);
      for (const piece of String(block.text).match(/\S+\s*|\s+/g) ?? [])
        events.push(['content_block_delta', { index, delta: { type: 'text_delta', text: piece } }]);
    } else {
      events.push(['content_block_start', { index, content_block: { ...block, input: {} } }]);
      const json = JSON.stringify(block.input);
      // The API's first input_json_delta is empty; the JSON then comes in pieces that are not valid JSON alone.
      for (const piece of ['', json.slice(0, 5), json.slice(5)])
        events.push([
          'content_block_delta',
          { index, delta: { type: 'input_json_delta', partial_json: piece } },
        ]);
    }
    events.push(['content_block_stop', { index }]);
  });
  const ending: [string, Json][] = errorMidStream
    ? [['error', { error: { type: errorMidStream, message: 'Overloaded' } }]]
    : [
        [
          'message_delta',
          {
            delta: { stop_reason: answer.stopReason, stop_sequence: answer.stopSequence },
            usage: { ...input, output_tokens: output },
          },
        ],
        ['message_stop', {}],
      ];
  // Mid-stream, the error comes after the first pieces (the answer has begun).
  const sent = errorMidStream ? events.slice(0, 4) : events;
  return [...sent, ...ending].map(([name, data]) => [name, { type: name, ...data }]);
}
