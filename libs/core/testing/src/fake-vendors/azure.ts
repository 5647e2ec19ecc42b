// A fake Azure OpenAI resource: the data-plane inference API as the Azure OpenAI spec (api-version 2024-10-21,
// inference.json) and the `openai` SDK's AzureOpenAI client (azure.js) define it. Paths name the deployment
// (`/openai/deployments/{deployment}/chat/completions`, `/embeddings`, `/images/generations`, `/audio/speech`,
// `/audio/transcriptions`) and need `?api-version=`; the key comes in `api-key`. Answers are OpenAI's with Azure's
// content-filter annotations; a stream opens with the prompt's filter results (`choices: []`) and ends with usage and
// `[DONE]`; errors use OpenAI's envelope (429 with `retry-after` and `retry-after-ms`, a prompt its filter refuses: 400
// `content_filter`).
import type { ServerResponse } from 'node:http';
import type { FakeVendorUpstream, VendorRequestView, VendorScript } from './vendor-upstream.js';
import { echo, pieces, sendJson, startFakeServer, TINY_PNG, type FakeRequest } from './fake-server.js';

export interface FakeAzureUpstream extends FakeVendorUpstream {
  /** `prompt`: the next requests are refused by the content filter (400); `answer`: the answer is cut by it. */
  contentFilter(where: 'prompt' | 'answer' | undefined): void;
}

interface ChatBody {
  readonly messages?: readonly { role: string; content?: unknown; tool_call_id?: string }[];
  readonly tools?: readonly { function?: { name?: string } }[];
  readonly stream?: boolean;
  readonly stop?: string | string[];
  readonly max_tokens?: number;
  readonly max_completion_tokens?: number;
  readonly temperature?: number;
  readonly model?: string;
}

type Part = { type?: string; text?: string; image_url?: { url?: string }; cache_control?: unknown };

const parts = (content: unknown): Part[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
const textOf = (content: unknown): string =>
  parts(content)
    .filter((part) => part.type === 'text')
    .map((part) => part.text ?? '')
    .join('\n');

/** An OpenAI-wire chat body in neutral terms. */
export function openAiRequestView(
  model: string,
  body: ChatBody,
  headers: VendorRequestView['headers'],
): VendorRequestView {
  const messages = body.messages ?? [];
  const system = messages.filter((message) => message.role === 'system' || message.role === 'developer');
  const users = messages.filter((message) => message.role === 'user');
  return {
    model,
    stream: body.stream === true,
    ...(system.length ? { system: system.map((message) => textOf(message.content)).join('\n') } : {}),
    userTexts: users.map((message) => textOf(message.content)),
    images: users.flatMap((message) =>
      parts(message.content).flatMap((part) => {
        const match = /^data:([^;]+);base64,(.*)$/s.exec(part.image_url?.url ?? '');
        return match ? [{ mediaType: match[1]!, bytes: match[2]!.length }] : [];
      }),
    ),
    tools: (body.tools ?? []).map((tool) => tool.function?.name ?? ''),
    toolResults: messages
      .filter((message) => message.role === 'tool')
      .map((message) => ({ callId: message.tool_call_id ?? '', text: textOf(message.content) })),
    ...(body.stop !== undefined ? { stopSequences: [body.stop].flat() } : {}),
    ...((body.max_completion_tokens ?? body.max_tokens) !== undefined
      ? { maxTokens: body.max_completion_tokens ?? body.max_tokens }
      : {}),
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    cacheMarks: messages.flatMap((message) => parts(message.content)).filter((part) => part.cache_control)
      .length,
    headers,
  };
}

const FILTER_RESULTS = {
  hate: { filtered: false, severity: 'safe' },
  self_harm: { filtered: false, severity: 'safe' },
  sexual: { filtered: false, severity: 'safe' },
  violence: { filtered: false, severity: 'safe' },
};
const PROMPT_FILTER = [{ prompt_index: 0, content_filter_results: FILTER_RESULTS }];

const azureError = (code: string, message: string, extra: Record<string, unknown> = {}) => ({
  error: { code, message, ...extra },
});

/** Each failure as Azure OpenAI answers it. */
const FAILURES: Readonly<Record<string, [number, ReturnType<typeof azureError>]>> = {
  rate_limit: [
    429,
    azureError(
      '429',
      'Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 2 seconds.',
    ),
  ],
  overloaded: [
    503,
    azureError(
      'ServiceUnavailable',
      'The service is temporarily unable to process your request. Please try again later.',
    ),
  ],
  context_length: [
    400,
    azureError(
      'context_length_exceeded',
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130001 tokens. Please reduce the length of the messages.",
      { type: 'invalid_request_error', param: 'messages' },
    ),
  ],
  bad_request: [
    400,
    azureError('invalid_value', "Invalid value for 'temperature': must be at most 2.", {
      type: 'invalid_request_error',
      param: 'temperature',
    }),
  ],
  auth: [
    401,
    azureError(
      '401',
      'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
    ),
  ],
  content_filter: [
    400,
    azureError(
      'content_filter',
      "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
      {
        param: 'prompt',
        type: null,
        status: 400,
        innererror: {
          code: 'ResponsibleAIPolicyViolation',
          content_filter_result: { ...FILTER_RESULTS, violence: { filtered: true, severity: 'high' } },
        },
      },
    ),
  ],
};

export async function startFakeAzure(options: { readonly apiKey: string }): Promise<FakeAzureUpstream> {
  const requests: VendorRequestView[] = [];
  let script: VendorScript = {};
  let filter: 'prompt' | 'answer' | undefined;
  let calls = 0;

  const chat = (deployment: string, body: ChatBody, request: FakeRequest, response: ServerResponse) => {
    const view = openAiRequestView(deployment, body, request.headers);
    requests.push(view);
    const failure = filter === 'prompt' ? 'content_filter' : script.failure;
    if (failure) {
      const [status, error] = FAILURES[failure]!;
      const wait = script.retryAfterSeconds ?? 2;
      return sendJson(response, status, error, {
        ...(failure === 'rate_limit'
          ? { 'retry-after': String(Math.ceil(wait)), 'retry-after-ms': String(wait * 1000) }
          : {}),
        'x-ms-region': 'Sweden Central',
      });
    }
    const id = `chatcmpl-${++calls}`;
    const created = Math.floor(Date.now() / 1000);
    const text = filter === 'answer' ? 'Partial' : (script.text ?? echo(view.userTexts));
    const toolCalls = (script.toolCalls ?? []).map((call, index) => ({
      id: `call_${calls}_${index}`,
      type: 'function' as const,
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    }));
    const finish =
      filter === 'answer'
        ? 'content_filter'
        : toolCalls.length
          ? 'tool_calls'
          : script.stop === 'length'
            ? 'length'
            : 'stop';
    const input = script.usage?.input ?? 10;
    const usage = {
      prompt_tokens: input,
      completion_tokens: script.usage?.output ?? text.split(' ').length,
      total_tokens: input + (script.usage?.output ?? text.split(' ').length),
      prompt_tokens_details: { cached_tokens: script.usage?.cacheRead ?? 0 },
    };
    const base = { id, created, model: 'gpt-4o-2024-11-20', system_fingerprint: 'fp_azure' };
    if (!view.stream) {
      const message = toolCalls.length
        ? { role: 'assistant', content: null, refusal: null, tool_calls: toolCalls }
        : { role: 'assistant', content: text, refusal: null };
      return sendJson(response, 200, {
        ...base,
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message,
            finish_reason: finish,
            logprobs: null,
            content_filter_results: FILTER_RESULTS,
          },
        ],
        usage,
        prompt_filter_results: PROMPT_FILTER,
      });
    }
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
    });
    const send = (chunk: object) =>
      response.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', ...chunk })}\n\n`);
    const choice = (delta: object, finishReason: string | null = null) => ({
      choices: [
        {
          index: 0,
          delta,
          finish_reason: finishReason,
          logprobs: null,
          content_filter_results: FILTER_RESULTS,
        },
      ],
    });
    send({ id: '', created: 0, model: '', choices: [], prompt_filter_results: PROMPT_FILTER });
    send(choice({ role: 'assistant', content: '', refusal: null }));
    if (toolCalls.length)
      toolCalls.forEach((call, index) => {
        send(
          choice({
            tool_calls: [
              { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
            ],
          }),
        );
        send(choice({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }));
      });
    else for (const piece of pieces(text)) send(choice({ content: piece }));
    send(choice({}, finish));
    send({ choices: [], usage });
    response.end('data: [DONE]\n\n');
  };

  const server = await startFakeServer((request, response) => {
    const match = /^\/openai\/deployments\/([^/]+)\/(.+)$/.exec(request.path);
    if (!match || request.method !== 'POST')
      return sendJson(response, 404, azureError('404', 'Resource not found'));
    if (!request.query.get('api-version'))
      return sendJson(
        response,
        404,
        azureError('404', 'Resource not found (the api-version query parameter is required)'),
      );
    if (request.headers['api-key'] !== options.apiKey) return sendJson(response, ...FAILURES.auth!);
    const deployment = decodeURIComponent(match[1]!);
    const route = match[2]!;
    if (route === 'chat/completions')
      return chat(deployment, JSON.parse(request.body.toString('utf8')) as ChatBody, request, response);
    if (route === 'embeddings') {
      const body = JSON.parse(request.body.toString('utf8')) as {
        input: string | string[];
        encoding_format?: string;
      };
      const inputs = [body.input].flat();
      const vector = (input: string) => Array.from({ length: 8 }, (_, at) => ((input.length + at) % 7) / 7);
      // base64: the little-endian float32s (what the SDK asks for by default and decodes).
      const encoded = (values: number[]) =>
        body.encoding_format === 'base64'
          ? Buffer.from(new Float32Array(values).buffer).toString('base64')
          : values;
      return sendJson(response, 200, {
        object: 'list',
        model: 'text-embedding-3-small',
        data: inputs.map((input, index) => ({
          object: 'embedding',
          index,
          embedding: encoded(vector(String(input))),
        })),
        usage: { prompt_tokens: inputs.length * 3, total_tokens: inputs.length * 3 },
      });
    }
    if (route === 'images/generations')
      return sendJson(response, 200, {
        created: Math.floor(Date.now() / 1000),
        data: [{ b64_json: TINY_PNG, revised_prompt: 'a dot', content_filter_results: FILTER_RESULTS }],
      });
    if (route === 'audio/speech') {
      const body = JSON.parse(request.body.toString('utf8')) as { input?: string; voice?: string };
      response.writeHead(200, { 'content-type': 'audio/wav' });
      return void response.end(Buffer.from(`RIFF${body.voice}:${body.input}`, 'latin1'));
    }
    if (route === 'audio/transcriptions') return sendJson(response, 200, { text: `heard by ${deployment}` });
    return sendJson(response, 404, azureError('404', 'Resource not found'));
  });

  return {
    baseUrl: server.url,
    requests,
    script: (next) => void (script = next),
    contentFilter: (where) => void (filter = where),
    close: () => server.close(),
  };
}
