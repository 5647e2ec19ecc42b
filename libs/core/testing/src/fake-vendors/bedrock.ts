// A fake Amazon Bedrock runtime: Converse (`POST /model/{modelId}/converse`), ConverseStream (`/converse-stream`, AWS's
// binary event stream, each frame made by the SDK's own EventStreamCodec) and Titan text embeddings
// (`/model/{modelId}/invoke`), as the API reference (API_runtime_Converse, API_runtime_ConverseStream) and the
// `@aws-sdk/client-bedrock-runtime` models define them. Every request must be signed: SigV4 (service `bedrock`) is
// checked by signing it again with `@smithy/signature-v4` and the known secret (a wrong signature or key id gets AWS's
// 403), or a Bedrock API key as `Authorization: Bearer`. Errors are AWS's: the type in `x-amzn-errortype`, `{ message }`
// as the body; mid-stream, exception frames (`:message-type: exception`). Bedrock sends no Retry-After.
import type { ServerResponse } from 'node:http';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { FakeVendorUpstream, VendorRequestView, VendorScript } from './vendor-upstream.js';
import { echo, pieces, sendJson, startFakeServer, type FakeRequest } from './fake-server.js';
import { signatureProblem } from './aws-signature.js';

export { FAKE_AWS_ACCESS_KEY_ID } from './aws-signature.js';
/** The secret the registered fake (FAKE_VENDORS) checks signatures with. */
export const FAKE_AWS_SECRET_ACCESS_KEY = 'fake/bedrock/SecretAccessKey0000000000';
export const FAKE_AWS_REGION = 'eu-central-1';

export interface FakeBedrockUpstream extends FakeVendorUpstream {
  /** The next streams send this exception frame (`throttlingException`, `validationException`, …) after their start. */
  failMidStream(exceptionType: string | undefined): void;
}

type Block = {
  text?: string;
  image?: { format?: string; source?: { bytes?: string } };
  toolUse?: { toolUseId?: string; name?: string; input?: unknown };
  toolResult?: { toolUseId?: string; content?: { text?: string; json?: unknown }[] };
  cachePoint?: unknown;
};
interface ConverseBody {
  messages?: { role?: string; content?: Block[] }[];
  system?: Block[];
  toolConfig?: { tools?: { toolSpec?: { name?: string }; cachePoint?: unknown }[] };
  inferenceConfig?: { maxTokens?: number; temperature?: number; stopSequences?: string[] };
}

const texts = (blocks: readonly Block[] | undefined): string[] =>
  (blocks ?? []).flatMap((block) => (typeof block.text === 'string' ? [block.text] : []));

/** A Converse body in neutral terms. */
function requestView(
  model: string,
  stream: boolean,
  body: ConverseBody,
  request: FakeRequest,
): VendorRequestView {
  const messages = body.messages ?? [];
  const users = messages.filter((message) => message.role === 'user');
  const blocks = [...(body.system ?? []), ...messages.flatMap((message) => message.content ?? [])];
  const tools = body.toolConfig?.tools ?? [];
  const inference = body.inferenceConfig ?? {};
  return {
    model,
    stream,
    ...(body.system?.length ? { system: texts(body.system).join('\n') } : {}),
    userTexts: users
      .filter((message) => texts(message.content).length)
      .map((message) => texts(message.content).join('\n')),
    images: users.flatMap((message) =>
      (message.content ?? []).flatMap((block) =>
        block.image
          ? [{ mediaType: `image/${block.image.format}`, bytes: block.image.source?.bytes?.length ?? 0 }]
          : [],
      ),
    ),
    tools: tools.flatMap((tool) => (tool.toolSpec ? [tool.toolSpec.name ?? ''] : [])),
    toolResults: blocks.flatMap((block) =>
      block.toolResult
        ? [
            {
              callId: block.toolResult.toolUseId ?? '',
              text: (block.toolResult.content ?? [])
                .map((item) => item.text ?? JSON.stringify(item.json))
                .join('\n'),
            },
          ]
        : [],
    ),
    ...(inference.stopSequences ? { stopSequences: inference.stopSequences } : {}),
    ...(inference.maxTokens !== undefined ? { maxTokens: inference.maxTokens } : {}),
    ...(inference.temperature !== undefined ? { temperature: inference.temperature } : {}),
    cacheMarks: [...blocks, ...tools].filter((block) => block.cachePoint).length,
    headers: request.headers,
  };
}

/** An AWS error answer: its type in `x-amzn-errortype` (with the Coral namespace, as Bedrock sends it). */
function awsError(response: ServerResponse, status: number, type: string, message: string): void {
  sendJson(
    response,
    status,
    { message },
    {
      'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
      'x-amzn-requestid': crypto.randomUUID(),
    },
  );
}

const FAILURES: Readonly<Record<string, [number, string, string]>> = {
  rate_limit: [429, 'ThrottlingException', 'Too many requests, please wait before trying again.'],
  overloaded: [503, 'ServiceUnavailableException', 'Bedrock is unable to process your request.'],
  context_length: [400, 'ValidationException', 'Input is too long for requested model.'],
  bad_request: [
    400,
    'ValidationException',
    'The model returned the following errors: temperature: range: 0..1',
  ],
  auth: [403, 'AccessDeniedException', "You don't have access to the model with the specified model ID."],
};

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** One event frame as ConverseStream sends it (with the `p` padding field AWS adds to hide lengths). */
const eventFrame = (type: string, payload: object): Uint8Array =>
  codec.encode({
    headers: {
      ':event-type': { type: 'string', value: type },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: fromUtf8(JSON.stringify({ ...payload, p: 'abcdefghij'.slice(0, 1 + (type.length % 10)) })),
  });

const exceptionFrame = (type: string, message: string): Uint8Array =>
  codec.encode({
    headers: {
      ':exception-type': { type: 'string', value: type },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'exception' },
    },
    body: fromUtf8(JSON.stringify({ message })),
  });

/** The answer a script asks for: content blocks, stop reason and usage as Converse says them. */
function answerOf(script: VendorScript, view: VendorRequestView, calls: number) {
  const text = script.text ?? echo(view.userTexts);
  const toolUses = (script.toolCalls ?? []).map((call, index) => ({
    toolUseId: `tooluse_${calls}x${index}`,
    name: call.name,
    input: call.arguments,
  }));
  const stopReason = toolUses.length ? 'tool_use' : script.stop === 'length' ? 'max_tokens' : 'end_turn';
  const cacheRead = script.usage?.cacheRead ?? 0;
  const cacheWrite = script.usage?.cacheWrite ?? 0;
  const input = script.usage?.input ?? 10;
  const output = script.usage?.output ?? text.split(' ').length;
  // Bedrock counts cache reads and writes apart from inputTokens (totalTokens has them all).
  const usage = {
    inputTokens: input - cacheRead - cacheWrite,
    outputTokens: output,
    totalTokens: input + output,
    ...(cacheRead || cacheWrite
      ? { cacheReadInputTokens: cacheRead, cacheWriteInputTokens: cacheWrite }
      : {}),
  };
  return { text: toolUses.length ? '' : text, toolUses, stopReason, usage };
}

export async function startFakeBedrock(options: {
  readonly apiKey: string;
  /** The secret access key SigV4 signatures are checked with (default: `apiKey`). */
  readonly secretAccessKey?: string;
}): Promise<FakeBedrockUpstream> {
  const requests: VendorRequestView[] = [];
  let script: VendorScript = {};
  let midStream: string | undefined;
  let calls = 0;

  const converse = (model: string, stream: boolean, request: FakeRequest, response: ServerResponse) => {
    const view = requestView(
      model,
      stream,
      JSON.parse(request.body.toString('utf8')) as ConverseBody,
      request,
    );
    requests.push(view);
    if (script.failure) return awsError(response, ...FAILURES[script.failure]!);
    const answer = answerOf(script, view, ++calls);
    if (!stream) {
      const content = [
        ...(answer.text ? [{ text: answer.text }] : []),
        ...answer.toolUses.map((toolUse) => ({ toolUse })),
      ];
      return sendJson(response, 200, {
        output: { message: { role: 'assistant', content } },
        stopReason: answer.stopReason,
        usage: answer.usage,
        metrics: { latencyMs: 42 },
      });
    }
    response.writeHead(200, {
      'content-type': 'application/vnd.amazon.eventstream',
      'x-amzn-requestid': crypto.randomUUID(),
    });
    response.write(eventFrame('messageStart', { role: 'assistant' }));
    if (midStream) return void response.end(exceptionFrame(midStream, 'The stream failed (scripted).'));
    let index = 0;
    if (answer.text) {
      for (const piece of pieces(answer.text))
        response.write(eventFrame('contentBlockDelta', { contentBlockIndex: index, delta: { text: piece } }));
      response.write(eventFrame('contentBlockStop', { contentBlockIndex: index++ }));
    }
    for (const toolUse of answer.toolUses) {
      const input = JSON.stringify(toolUse.input);
      const half = Math.ceil(input.length / 2);
      response.write(
        eventFrame('contentBlockStart', {
          contentBlockIndex: index,
          start: { toolUse: { toolUseId: toolUse.toolUseId, name: toolUse.name } },
        }),
      );
      for (const part of [input.slice(0, half), input.slice(half)])
        response.write(
          eventFrame('contentBlockDelta', { contentBlockIndex: index, delta: { toolUse: { input: part } } }),
        );
      response.write(eventFrame('contentBlockStop', { contentBlockIndex: index++ }));
    }
    response.write(eventFrame('messageStop', { stopReason: answer.stopReason }));
    response.end(eventFrame('metadata', { usage: answer.usage, metrics: { latencyMs: 42 } }));
  };

  const server = await startFakeServer(async (request, response) => {
    const match = /^\/model\/([^/]+)\/(converse|converse-stream|invoke)$/.exec(request.path);
    if (!match || request.method !== 'POST')
      return awsError(response, 404, 'UnknownOperationException', 'Unknown operation');
    const problem = await signatureProblem(
      request,
      options.secretAccessKey ?? options.apiKey,
      options.apiKey,
    );
    if (problem) return awsError(response, 403, ...problem);
    const model = decodeURIComponent(match[1]!);
    if (match[2] !== 'invoke') return converse(model, match[2] === 'converse-stream', request, response);
    const body = JSON.parse(request.body.toString('utf8')) as { inputText?: string };
    if (typeof body.inputText !== 'string')
      return awsError(
        response,
        400,
        'ValidationException',
        'Malformed input request: required key [inputText] not found',
      );
    requests.push({ ...requestView(model, false, {}, request), userTexts: [body.inputText] });
    if (script.failure) return awsError(response, ...FAILURES[script.failure]!);
    return sendJson(response, 200, {
      embedding: Array.from({ length: 8 }, (_, at) => ((body.inputText!.length + at) % 5) / 5),
      inputTextTokenCount: body.inputText.split(' ').length,
    });
  });

  return {
    baseUrl: server.url,
    requests,
    script: (next) => void (script = next),
    failMidStream: (type) => void (midStream = type),
    close: () => server.close(),
  };
}
