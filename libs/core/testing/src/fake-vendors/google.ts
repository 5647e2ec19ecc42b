// A fake Gemini API (https://ai.google.dev/api/generate-content, the `@google/genai` SDK's types): under `/v1beta`,
// `POST models/<id>:generateContent`, `:streamGenerateContent?alt=sse` (server-sent events, each `data:` a whole
// GenerateContentResponse, usage in every chunk and complete in the last) and `:batchEmbedContents`; the key in
// `x-goog-api-key` (or `?key=`), a missing one a 403 PERMISSION_DENIED and a wrong one a 400 with the reason
// API_KEY_INVALID, as Google answers them; failures in Google's envelope `{ error: { code, message, status, details } }`
// (a 429's wait in a RetryInfo detail, not a header). Function calls come without ids, the first with a
// thoughtSignature, as Gemini 3 sends them.
import { randomUUID } from 'node:crypto';
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
  startVendorServer,
  streamPieces,
  type VendorCall,
} from './vendor-server.js';

interface Part {
  text?: string;
  thought?: boolean;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType?: string; fileUri: string };
  functionCall?: { id?: string; name: string; args?: Record<string, unknown> };
  functionResponse?: { id?: string; name: string; response?: Record<string, unknown> };
}

interface GenerateContentRequest {
  contents?: { role?: string; parts?: Part[] }[];
  systemInstruction?: { parts?: Part[] };
  tools?: { functionDeclarations?: { name: string }[] }[];
  generationConfig?: { stopSequences?: string[]; maxOutputTokens?: number; temperature?: number };
}

const SIGNATURE = Buffer.from('fake thought signature').toString('base64');

const FAILURES: Readonly<Record<VendorFailure, { code: number; status: string; message: string }>> = {
  rate_limit: {
    code: 429,
    status: 'RESOURCE_EXHAUSTED',
    message: 'You exceeded your current quota, please check your plan and billing details.',
  },
  overloaded: {
    code: 503,
    status: 'UNAVAILABLE',
    message: 'The model is overloaded. Please try again later.',
  },
  context_length: {
    code: 400,
    status: 'INVALID_ARGUMENT',
    message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
  },
  bad_request: {
    code: 400,
    status: 'INVALID_ARGUMENT',
    message:
      "* GenerateContentRequest.contents[0].parts[0].data: required oneof field 'data' must have one initialized field",
  },
  auth: { code: 400, status: 'INVALID_ARGUMENT', message: 'API key not valid. Please pass a valid API key.' },
};

function sendFailure(response: ServerResponse, failure: VendorFailure, retryAfterSeconds?: number): void {
  const { code, status, message } = FAILURES[failure];
  const details =
    failure === 'auth'
      ? [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'API_KEY_INVALID',
            domain: 'googleapis.com',
          },
        ]
      : failure === 'rate_limit' && retryAfterSeconds !== undefined
        ? [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfterSeconds}s` }]
        : undefined;
  sendJson(response, code, { error: { code, message, status, ...(details ? { details } : {}) } });
}

const texts = (parts: readonly Part[] | undefined): string[] =>
  (parts ?? []).flatMap((part) => (part.text !== undefined && !part.thought ? [part.text] : []));

function viewOf(
  model: string,
  stream: boolean,
  body: GenerateContentRequest,
  call: VendorCall,
): VendorRequestView {
  const user = (body.contents ?? []).filter((content) => content.role !== 'model');
  const userParts = user.flatMap((content) => content.parts ?? []);
  const system = texts(body.systemInstruction?.parts);
  const config = body.generationConfig;
  return {
    model,
    stream,
    ...(system.length ? { system: system.join('\n') } : {}),
    userTexts: user
      .map((content) => texts(content.parts))
      .filter((text) => text.length)
      .map((text) => text.join('\n')),
    images: userParts.flatMap((part) =>
      part.inlineData
        ? [{ mediaType: part.inlineData.mimeType, bytes: part.inlineData.data.length }]
        : part.fileData
          ? [{ mediaType: part.fileData.mimeType ?? '', bytes: 0 }]
          : [],
    ),
    tools: (body.tools ?? []).flatMap((tool) =>
      (tool.functionDeclarations ?? []).map((declaration) => declaration.name),
    ),
    toolResults: userParts.flatMap((part) =>
      part.functionResponse
        ? [
            {
              callId: part.functionResponse.id ?? part.functionResponse.name,
              text:
                typeof part.functionResponse.response?.result === 'string'
                  ? part.functionResponse.response.result
                  : JSON.stringify(part.functionResponse.response ?? {}),
            },
          ]
        : [],
    ),
    ...(config?.stopSequences ? { stopSequences: config.stopSequences } : {}),
    ...(config?.maxOutputTokens !== undefined ? { maxTokens: config.maxOutputTokens } : {}),
    ...(config?.temperature !== undefined ? { temperature: config.temperature } : {}),
    cacheMarks: 0,
    headers: call.headers,
  };
}

function answerOf(script: VendorScript, view: VendorRequestView, body: GenerateContentRequest) {
  const prompt = [
    view.system ?? '',
    ...(body.contents ?? []).flatMap((content) => texts(content.parts)),
  ].join(' ');
  const { text, usage } = scriptedAnswer(script, view.userTexts, prompt);
  const parts: Part[] = script.toolCalls?.length
    ? script.toolCalls.map((call, index) => ({
        functionCall: { name: call.name, args: { ...call.arguments } },
        ...(index === 0 ? { thoughtSignature: SIGNATURE } : {}),
      }))
    : [{ text }];
  const usageMetadata = {
    promptTokenCount: usage.input,
    candidatesTokenCount: usage.output,
    totalTokenCount: usage.input + usage.output,
    ...(usage.cacheRead ? { cachedContentTokenCount: usage.cacheRead } : {}),
  };
  return { parts, finishReason: script.stop === 'length' ? 'MAX_TOKENS' : 'STOP', usageMetadata };
}

export const startFakeGoogle: StartFakeVendor = async ({ apiKey }) => {
  const requests: VendorRequestView[] = [];
  let script: VendorScript = {};
  const server = await startVendorServer((call, response) => {
    const route =
      /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent|batchEmbedContents)$/.exec(
        call.path,
      );
    if (call.method !== 'POST' || !route)
      return sendJson(response, 404, { error: { code: 404, message: 'Not Found', status: 'NOT_FOUND' } });
    const key = call.headers['x-goog-api-key'] ?? call.query.get('key');
    if (!key)
      return sendJson(response, 403, {
        error: {
          code: 403,
          message:
            "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
          status: 'PERMISSION_DENIED',
        },
      });
    if (key !== apiKey) return sendFailure(response, 'auth');
    const [, model, method] = route as unknown as [string, string, string];
    if (method === 'batchEmbedContents') return embed(model, call, response);
    const body = (call.body ?? {}) as GenerateContentRequest;
    const stream = method === 'streamGenerateContent';
    const view = viewOf(model, stream, body, call);
    requests.push(view);
    if (script.failure) return sendFailure(response, script.failure, script.retryAfterSeconds);
    if (!body.contents?.length)
      return sendJson(response, 400, {
        error: {
          code: 400,
          message: '* GenerateContentRequest.contents: contents is not specified',
          status: 'INVALID_ARGUMENT',
        },
      });
    const answer = answerOf(script, view, body);
    const responseId = randomUUID().replaceAll('-', '').slice(0, 22);
    const chunk = (parts: Part[], last: boolean) => ({
      candidates: [
        {
          content: { parts, role: 'model' },
          index: 0,
          ...(last ? { finishReason: answer.finishReason } : {}),
        },
      ],
      usageMetadata: last
        ? answer.usageMetadata
        : {
            promptTokenCount: answer.usageMetadata.promptTokenCount,
            totalTokenCount: answer.usageMetadata.promptTokenCount,
          },
      modelVersion: model,
      responseId,
    });
    if (!stream) return sendJson(response, 200, chunk(answer.parts, true));
    if (call.query.get('alt') !== 'sse') return sendJson(response, 200, [chunk(answer.parts, true)]);
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const pieces =
      answer.parts[0]?.text !== undefined
        ? streamPieces(answer.parts[0].text).map((text) => [{ text }])
        : [answer.parts];
    pieces.forEach((parts, index) =>
      response.write(`data: ${JSON.stringify(chunk(parts, index === pieces.length - 1))}\r\n\r\n`),
    );
    response.end();
  });

  function embed(model: string, call: VendorCall, response: ServerResponse): void {
    const body = (call.body ?? {}) as { requests?: { model?: string; content?: { parts?: Part[] } }[] };
    const batch = body.requests ?? [];
    requests.push({
      ...viewOf(
        model,
        false,
        { contents: batch.map((request) => ({ role: 'user', parts: request.content?.parts })) },
        call,
      ),
    });
    if (script.failure) return sendFailure(response, script.failure, script.retryAfterSeconds);
    if (batch.some((request) => request.model !== `models/${model}`))
      return sendJson(response, 400, {
        error: {
          code: 400,
          message: `Model names in the batch must match models/${model}.`,
          status: 'INVALID_ARGUMENT',
        },
      });
    sendJson(response, 200, {
      embeddings: batch.map((request) => ({ values: fakeVector(texts(request.content?.parts).join(' ')) })),
    });
  }

  const fake: FakeVendorUpstream = {
    baseUrl: `${server.origin}/v1beta`,
    requests,
    script: (next) => {
      script = next;
    },
    close: () => server.close(),
  };
  return fake;
};
