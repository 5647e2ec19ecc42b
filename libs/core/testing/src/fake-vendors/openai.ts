// A fake OpenAI-compatible upstream for the provider matrix: chat completions (JSON and SSE with a usage chunk) as
// OpenAI's API reference and the `openai` SDK's types describe them, errors in OpenAI's envelope with OpenAI's statuses
// and codes (429 `rate_limit_exceeded` with Retry-After, 503, 400 `context_length_exceeded`, 401
// `invalid_api_key`). The richer fake-openai-upstream.ts serves the gateway's other tests; this one is scripted in the
// matrix's neutral terms.
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import { sendJson, startVendorServer } from './vendor-server.js';
import type {
  FakeVendorUpstream,
  VendorFailure,
  VendorRequestView,
  VendorScript,
} from './vendor-upstream.js';

/** How an answer is written: JSON with a status, or server-sent events. */
interface Exchange {
  json(status: number, body: unknown, headers?: Record<string, string>): void;
  sse(events: readonly { readonly data: string }[]): void;
}

type Part = { type: string; text?: string; image_url?: { url: string }; cache_control?: unknown };
type Message = {
  role: string;
  content?: string | Part[] | null;
  tool_call_id?: string;
  tool_calls?: unknown[];
};

const FAILURES: Record<VendorFailure, { status: number; type: string; code: string; message: string }> = {
  rate_limit: {
    status: 429,
    type: 'requests',
    code: 'rate_limit_exceeded',
    message: 'Rate limit reached for requests',
  },
  overloaded: {
    status: 503,
    type: 'server_error',
    code: 'server_overloaded',
    message: 'The server is overloaded',
  },
  context_length: {
    status: 400,
    type: 'invalid_request_error',
    code: 'context_length_exceeded',
    message:
      "This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens.",
  },
  bad_request: {
    status: 400,
    type: 'invalid_request_error',
    code: 'invalid_value',
    message: "Invalid value for 'temperature'",
  },
  auth: {
    status: 401,
    type: 'invalid_request_error',
    code: 'invalid_api_key',
    message: 'Incorrect API key provided',
  },
};

const textOf = (content: Message['content']): string =>
  typeof content === 'string'
    ? content
    : (content ?? [])
        .filter((part) => part.type === 'text')
        .map((part) => part.text ?? '')
        .join('\n');

function view(body: Record<string, unknown>, headers: VendorRequestView['headers']): VendorRequestView {
  const messages = (body.messages as Message[] | undefined) ?? [];
  const system = messages.filter((message) => message.role === 'system' || message.role === 'developer');
  const parts = messages.flatMap((message) => (Array.isArray(message.content) ? message.content : []));
  const stop = body.stop;
  return {
    model: String(body.model),
    stream: body.stream === true,
    ...(system.length ? { system: system.map((message) => textOf(message.content)).join('\n') } : {}),
    userTexts: messages
      .filter((message) => message.role === 'user')
      .map((message) => textOf(message.content)),
    images: messages
      .filter((message) => message.role === 'user' && Array.isArray(message.content))
      .flatMap((message) => message.content as Part[])
      .filter((part) => part.type === 'image_url')
      .map((part) => {
        const [, mediaType = '', data = ''] = /^data:([^;]+);base64,(.*)$/.exec(part.image_url!.url) ?? [];
        return { mediaType, bytes: data.length };
      }),
    tools: ((body.tools as { function: { name: string } }[] | undefined) ?? []).map(
      (tool) => tool.function.name,
    ),
    toolResults: messages
      .filter((message) => message.role === 'tool')
      .map((message) => ({ callId: message.tool_call_id ?? '', text: textOf(message.content) })),
    ...(stop !== undefined ? { stopSequences: typeof stop === 'string' ? [stop] : (stop as string[]) } : {}),
    ...(typeof (body.max_completion_tokens ?? body.max_tokens) === 'number'
      ? { maxTokens: (body.max_completion_tokens ?? body.max_tokens) as number }
      : {}),
    ...(typeof body.temperature === 'number' ? { temperature: body.temperature } : {}),
    cacheMarks: parts.filter((part) => part.cache_control !== undefined).length,
    headers,
  };
}

function answer(script: VendorScript, request: VendorRequestView) {
  const text = script.text ?? `Echo: ${request.userTexts.at(-1) ?? ''}`;
  const calls = (script.toolCalls ?? []).map((call, index) => ({
    id: `call_fake_${index + 1}`,
    type: 'function' as const,
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  const usage = script.usage ?? { input: 12, output: 5 };
  return {
    text: calls.length ? null : text,
    calls,
    finish: calls.length ? 'tool_calls' : script.stop === 'length' ? 'length' : 'stop',
    usage: {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
      prompt_tokens_details: { cached_tokens: usage.cacheRead ?? 0 },
    },
  } as const;
}

function reply(exchange: Exchange, script: VendorScript, request: VendorRequestView): void {
  const { text, calls, finish, usage } = answer(script, request);
  const base = { id: 'chatcmpl-fake', created: 1_700_000_000, model: request.model };
  if (!request.stream) {
    const completion: ChatCompletion = {
      ...base,
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: text,
            refusal: null,
            ...(calls.length ? { tool_calls: calls } : {}),
          },
          finish_reason: finish,
          logprobs: null,
        },
      ],
      usage,
    };
    exchange.json(200, completion);
    return;
  }
  const chunk = (delta: ChatCompletionChunk.Choice.Delta, finishReason: string | null = null) => ({
    ...base,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  });
  const events: unknown[] = [chunk({ role: 'assistant', content: '' })];
  for (const word of (text ?? '').split(/(?<= )/)) if (word) events.push(chunk({ content: word }));
  calls.forEach((call, index) => {
    events.push(
      chunk({
        tool_calls: [
          { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
        ],
      }),
    );
    events.push(chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }));
  });
  events.push(chunk({}, finish));
  events.push({ ...base, object: 'chat.completion.chunk', choices: [], usage });
  exchange.sse(events.map((data) => ({ data: JSON.stringify(data) })).concat({ data: '[DONE]' }));
}

export async function startFakeOpenAi(options: { readonly apiKey: string }): Promise<FakeVendorUpstream> {
  const requests: VendorRequestView[] = [];
  let script: VendorScript = {};
  const server = await startVendorServer((call, response) => {
    const exchange: Exchange = {
      json: (status, body, headers) => sendJson(response, status, body, headers),
      sse: (events) => {
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        for (const { data } of events) response.write(`data: ${data}\n\n`);
        response.end();
      },
    };
    if (call.method !== 'POST' || call.path !== '/v1/chat/completions')
      return exchange.json(404, {
        error: { message: 'Not found', type: 'invalid_request_error', code: null },
      });
    if (call.headers.authorization !== `Bearer ${options.apiKey}`)
      return exchange.json(401, { error: { ...FAILURES.auth, param: null } });
    const request = view(call.body as Record<string, unknown>, call.headers);
    requests.push(request);
    if (script.failure) {
      const { status, ...error } = FAILURES[script.failure];
      return exchange.json(
        status,
        { error: { ...error, param: null } },
        script.retryAfterSeconds ? { 'retry-after': String(script.retryAfterSeconds) } : {},
      );
    }
    reply(exchange, script, request);
  });
  return {
    baseUrl: `${server.origin}/v1`,
    requests,
    script: (next) => void (script = next),
    close: () => server.close(),
  };
}
