// A fake Ollama (https://github.com/ollama/ollama/blob/main/docs/api.md, the `ollama` SDK's types): `POST /api/chat`
// answering one JSON object, or with `stream` (Ollama's default) NDJSON lines of `message` pieces ended by a line
// `done: true` with `done_reason` and the counts `prompt_eval_count` / `eval_count`; `POST /api/embed` answering
// `embeddings`. Failures as Ollama says them, `{ error: "…" }`: 404 for a model it does not have, 400 for a prompt over
// the context, 503 when its queue is full; 401 and 429 as ollama.com answers them. With a key it wants it as a bearer
// token (ollama.com, or a proxy in front). Tool calls come without ids (Ollama gives none), and a tool result names
// its function (`tool_name`), not a call id: its view's `callId` is that name.
import type { ServerResponse } from 'node:http';
import type {
  FakeVendorUpstream,
  StartFakeVendor,
  VendorFailure,
  VendorRequestView,
  VendorScript,
} from './vendor-upstream.js';
import {
  fakeVector,
  scriptedAnswer,
  sendJson,
  sniffMediaType,
  startVendorServer,
  streamPieces,
  type VendorCall,
} from './vendor-server.js';

interface Message {
  role?: string;
  content?: string;
  images?: string[];
  tool_calls?: unknown[];
  tool_name?: string;
}

interface ChatRequest {
  model?: string;
  messages?: Message[];
  stream?: boolean;
  tools?: { function?: { name?: string } }[];
  options?: { stop?: string[]; num_predict?: number; temperature?: number };
}

const FAILURES: Readonly<Record<VendorFailure, { status: number; error: (model: string) => string }>> = {
  rate_limit: { status: 429, error: () => 'too many requests' },
  overloaded: {
    status: 503,
    error: () => 'server busy, please try again.  maximum pending requests exceeded',
  },
  context_length: { status: 400, error: () => 'the input length exceeds the context length' },
  bad_request: { status: 404, error: (model) => `model '${model}' not found` },
  auth: { status: 401, error: () => 'unauthorized' },
};

function sendFailure(
  response: ServerResponse,
  failure: VendorFailure,
  model: string,
  retryAfter?: number,
): void {
  const { status, error } = FAILURES[failure];
  sendJson(
    response,
    status,
    { error: error(model) },
    retryAfter !== undefined ? { 'retry-after': String(retryAfter) } : {},
  );
}

function viewOf(body: ChatRequest, call: VendorCall): VendorRequestView {
  const messages = body.messages ?? [];
  const user = messages.filter((message) => message.role === 'user');
  const system = messages
    .filter((message) => message.role === 'system')
    .map((message) => message.content ?? '');
  const options = body.options;
  return {
    model: body.model ?? '',
    stream: body.stream !== false,
    ...(system.length ? { system: system.join('\n') } : {}),
    userTexts: user.map((message) => message.content ?? ''),
    images: user.flatMap((message) =>
      (message.images ?? []).map((image) => ({ mediaType: sniffMediaType(image), bytes: image.length })),
    ),
    tools: (body.tools ?? []).map((tool) => tool.function?.name ?? ''),
    toolResults: messages
      .filter((message) => message.role === 'tool')
      .map((message) => ({ callId: message.tool_name ?? '', text: message.content ?? '' })),
    ...(options?.stop ? { stopSequences: options.stop } : {}),
    ...(options?.num_predict !== undefined ? { maxTokens: options.num_predict } : {}),
    ...(options?.temperature !== undefined ? { temperature: options.temperature } : {}),
    cacheMarks: 0,
    headers: call.headers,
  };
}

/** Ollama's timings, in nanoseconds (made up, but in its fields). */
const TIMINGS = {
  total_duration: 12_000_000,
  load_duration: 1_000_000,
  prompt_eval_duration: 4_000_000,
  eval_duration: 6_000_000,
};

function chat(
  script: VendorScript,
  body: ChatRequest,
  view: VendorRequestView,
  response: ServerResponse,
): void {
  const prompt = (body.messages ?? []).map((message) => message.content ?? '').join(' ');
  const { text, usage } = scriptedAnswer(script, view.userTexts, prompt);
  const model = body.model ?? '';
  const toolCalls = script.toolCalls?.map((toolCall, index) => ({
    function: { index, name: toolCall.name, arguments: { ...toolCall.arguments } },
  }));
  const line = (message: Record<string, unknown>, done: boolean) => ({
    model,
    created_at: new Date().toISOString(),
    message: { role: 'assistant', ...message },
    done,
    ...(done
      ? {
          done_reason: script.stop === 'length' ? 'length' : 'stop',
          ...TIMINGS,
          prompt_eval_count: usage.input,
          eval_count: usage.output,
        }
      : {}),
  });
  const message = toolCalls ? { content: '', tool_calls: toolCalls } : { content: text };
  if (!view.stream) return sendJson(response, 200, line(message, true));
  response.writeHead(200, { 'content-type': 'application/x-ndjson' });
  const pieces = toolCalls ? [message] : streamPieces(text).map((content) => ({ content }));
  for (const piece of pieces) response.write(`${JSON.stringify(line(piece, false))}\n`);
  response.end(`${JSON.stringify(line({ content: '' }, true))}\n`);
}

export const startFakeOllama: StartFakeVendor = async ({ apiKey }) => {
  const requests: VendorRequestView[] = [];
  let script: VendorScript = {};
  const server = await startVendorServer((call, response) => {
    if (call.method === 'GET' && call.path === '/api/version')
      return sendJson(response, 200, { version: '0.13.0' });
    if (call.method !== 'POST' || (call.path !== '/api/chat' && call.path !== '/api/embed')) {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('404 page not found');
      return;
    }
    if (call.headers.authorization !== `Bearer ${apiKey}`)
      return sendJson(response, 401, { error: 'unauthorized' });
    const body = (call.body ?? {}) as ChatRequest & { input?: string | string[] };
    if (call.path === '/api/embed') {
      const inputs = typeof body.input === 'string' ? [body.input] : (body.input ?? []);
      requests.push(
        viewOf(
          {
            model: body.model,
            stream: false,
            messages: inputs.map((content) => ({ role: 'user', content })),
          },
          call,
        ),
      );
      if (script.failure)
        return sendFailure(response, script.failure, body.model ?? '', script.retryAfterSeconds);
      return sendJson(response, 200, {
        model: body.model,
        embeddings: inputs.map(fakeVector),
        total_duration: TIMINGS.total_duration,
        load_duration: TIMINGS.load_duration,
        prompt_eval_count: inputs.join(' ').split(/\s+/).filter(Boolean).length,
      });
    }
    const view = viewOf(body, call);
    requests.push(view);
    if (script.failure)
      return sendFailure(response, script.failure, body.model ?? '', script.retryAfterSeconds);
    if (!body.model) return sendJson(response, 400, { error: 'model is required' });
    chat(script, body, view, response);
  });
  const fake: FakeVendorUpstream = {
    baseUrl: server.origin,
    requests,
    script: (next) => {
      script = next;
    },
    close: () => server.close(),
  };
  return fake;
};
