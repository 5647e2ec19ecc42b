// A chat request in the chat-completions shape translated to the Gemini API's GenerateContentRequest
// (https://ai.google.dev/api/generate-content#request-body): system messages become `systemInstruction`, the turns
// `contents` of `user` and `model` parts, tool calls `functionCall` parts and tool results `functionResponse` parts
// (named: Gemini pairs a result with its call by the function's name), tools `functionDeclarations` with their JSON
// Schema as `parametersJsonSchema` (which takes JSON Schema as it is, `additionalProperties` included), tool choice
// `toolConfig` and the sampling fields `generationConfig`. What Gemini cannot take is refused with a 400.
import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type { ChatRequest } from '../provider.port.js';
import {
  argumentsOf,
  dataUrl,
  functionCall,
  refuse,
  setFields,
  samplingFields,
  textOf,
} from '../native/chat-parts.js';

export interface GeminiPart {
  text?: string;
  /** A part of the model's reasoning (answers only; never shown as text). */
  thought?: boolean;
  /** Opaque: Gemini 3 asks for it back on the function calls it made. */
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType?: string; fileUri: string };
  functionCall?: { id?: string; name: string; args?: Record<string, unknown> };
  functionResponse?: { id?: string; name: string; response: Record<string, unknown> };
}

export interface GeminiContent {
  role?: 'user' | 'model';
  parts: GeminiPart[];
}

export interface GeminiRequest {
  contents: GeminiContent[];
  systemInstruction?: { parts: GeminiPart[] };
  tools?: { functionDeclarations: Record<string, unknown>[] }[];
  toolConfig?: {
    functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] };
  };
  generationConfig?: Record<string, unknown>;
}

/**
 * What Gemini 3 takes on a replayed function call whose signature was lost on the way (a client that kept only the
 * chat-completions fields): Google documents it for history the model did not write
 * (https://ai.google.dev/gemini-api/docs/thought-signatures).
 */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/** Media types by file extension, for image URLs Gemini fetches itself (`fileData`). */
const MEDIA_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
};

/** A data URL as inline bytes; an http(s) URL as a file Gemini fetches (https://ai.google.dev/gemini-api/docs/file-input-methods). */
function mediaPart(url: string, param: string): GeminiPart {
  const data = dataUrl(url);
  if (data) return { inlineData: { mimeType: data.mediaType, data: data.base64 } };
  if (!/^https?:\/\//i.test(url))
    return refuse(
      'unsupported_image',
      'an image or file must be a data URL (base64) or an http(s) URL',
      param,
    );
  const extension = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(url)?.[1]?.toLowerCase();
  const mimeType = extension ? MEDIA_TYPES[extension] : undefined;
  if (!mimeType)
    return refuse(
      'unsupported_image',
      'Gemini needs the media type of an image URL: send the image as a data URL, or a URL ending in .png, .jpg, .webp or .gif',
      param,
    );
  return { fileData: { mimeType, fileUri: url } };
}

function contentParts(
  content: string | readonly ChatCompletionContentPart[] | readonly { type: string; text?: string }[],
  param: string,
): GeminiPart[] {
  if (typeof content === 'string') return content ? [{ text: content }] : [];
  return content.map((part, index): GeminiPart => {
    const at = `${param}[${index}]`;
    const typed = part as ChatCompletionContentPart | { type: 'refusal'; refusal: string };
    switch (typed.type) {
      case 'text':
        return { text: typed.text };
      case 'refusal':
        return { text: typed.refusal };
      case 'image_url':
        return mediaPart(typed.image_url.url, at);
      case 'input_audio':
        return {
          inlineData: { mimeType: `audio/${typed.input_audio.format}`, data: typed.input_audio.data },
        };
      case 'file':
        if (typed.file.file_data) return mediaPart(typed.file.file_data, at);
        return refuse('unsupported_content', 'Gemini takes files as data URLs (file_data), not file ids', at);
      default:
        return refuse('unsupported_content', `content parts of type '${part.type}' cannot go to Gemini`, at);
    }
  });
}

/** A tool's result as Gemini's `response` object: a JSON object as it is, anything else under `result`. */
function responseOf(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // Plain text.
  }
  return { result: text };
}

/** The signature a client kept on a tool call (Google's OpenAI compatibility puts it under `extra_content`). */
const keptSignature = (call: ChatCompletionMessageToolCall): string | undefined =>
  (call as { extra_content?: { google?: { thought_signature?: string } } }).extra_content?.google
    ?.thought_signature;

function turns(messages: readonly ChatCompletionMessageParam[]) {
  const system: GeminiPart[] = [];
  const contents: GeminiContent[] = [];
  const callNames = new Map<string, string>();
  const add = (role: 'user' | 'model', parts: GeminiPart[]) => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    // One turn per role in a row: parallel calls' results must reach Gemini together.
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  messages.forEach((message, index) => {
    const param = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...contentParts(message.content, `${param}.content`));
        break;
      case 'user':
        add('user', contentParts(message.content, `${param}.content`));
        break;
      case 'assistant': {
        const parts = message.content ? contentParts(message.content, `${param}.content`) : [];
        (message.tool_calls ?? []).forEach((toolCall, at) => {
          const call = functionCall(toolCall, `${param}.tool_calls[${at}]`, 'Gemini');
          const args = argumentsOf(call, `${param}.tool_calls[${at}]`);
          callNames.set(call.id, call.function.name);
          const signature = keptSignature(call) ?? (at === 0 ? SKIP_SIGNATURE : undefined);
          parts.push({
            functionCall: { id: call.id, name: call.function.name, args },
            ...(signature ? { thoughtSignature: signature } : {}),
          });
        });
        add('model', parts);
        break;
      }
      case 'tool': {
        const name =
          callNames.get(message.tool_call_id) ??
          refuse(
            'unknown_tool_call',
            `the tool result answers call '${message.tool_call_id}', which no earlier assistant message made`,
            `${param}.tool_call_id`,
          );
        const response = responseOf(textOf(message.content));
        add('user', [{ functionResponse: { id: message.tool_call_id, name, response } }]);
        break;
      }
      case 'function':
        add('user', [
          { functionResponse: { name: message.name, response: responseOf(message.content ?? '') } },
        ]);
        break;
    }
  });
  return { system, contents };
}

/** JSON Schema as `parametersJsonSchema` takes it: without the `$schema` dialect marker it does not read. */
function schemaOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(schemaOf);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).flatMap(([key, field]) => (key === '$schema' ? [] : [[key, schemaOf(field)]])),
  );
}

function toolsOf(request: ChatRequest): Pick<GeminiRequest, 'tools' | 'toolConfig'> {
  const choice = request.tool_choice as ChatCompletionToolChoiceOption | undefined;
  let mode: 'AUTO' | 'ANY' | 'NONE' | undefined;
  let allowed: string[] | undefined;
  if (choice === 'none') mode = 'NONE';
  else if (choice === 'auto') mode = 'AUTO';
  else if (choice === 'required') mode = 'ANY';
  else if (choice?.type === 'function') [mode, allowed] = ['ANY', [choice.function.name]];
  else if (choice?.type === 'allowed_tools') {
    mode = choice.allowed_tools.mode === 'required' ? 'ANY' : 'AUTO';
    allowed = choice.allowed_tools.tools.flatMap((tool) =>
      typeof (tool as { function?: { name?: unknown } }).function?.name === 'string'
        ? [(tool as { function: { name: string } }).function.name]
        : [],
    );
  } else if (choice) refuse('unsupported_tool_choice', 'Gemini cannot take this tool_choice', 'tool_choice');
  const declarations = (request.tools ?? []).map((tool, index) => {
    if (tool.type !== 'function')
      return refuse('unsupported_tool', 'Gemini takes function tools only', `tools[${index}]`);
    const { name, description, parameters } = tool.function;
    return {
      name,
      ...(description ? { description } : {}),
      ...(parameters ? { parametersJsonSchema: schemaOf(parameters) } : {}),
    };
  });
  // Gemini takes allowed names only with mode ANY; with AUTO the others are left out instead.
  const offered =
    allowed && mode === 'AUTO' ? declarations.filter((tool) => allowed.includes(tool.name)) : declarations;
  return {
    ...(offered.length ? { tools: [{ functionDeclarations: offered }] } : {}),
    ...(mode && offered.length
      ? {
          toolConfig: {
            functionCallingConfig: {
              mode,
              ...(allowed && mode === 'ANY' ? { allowedFunctionNames: allowed } : {}),
            },
          },
        }
      : {}),
  };
}

function generationConfigOf(request: ChatRequest): Record<string, unknown> | undefined {
  const format = request.response_format;
  return setFields({
    ...samplingFields(request, {
      maxTokens: 'maxOutputTokens',
      temperature: 'temperature',
      topP: 'topP',
      topK: 'topK',
      stop: 'stopSequences',
      seed: 'seed',
      presencePenalty: 'presencePenalty',
      frequencyPenalty: 'frequencyPenalty',
    }),
    ...(format?.type === 'json_object' ? { responseMimeType: 'application/json' } : {}),
    ...(format?.type === 'json_schema'
      ? {
          responseMimeType: 'application/json',
          responseJsonSchema: schemaOf(format.json_schema.schema ?? {}),
        }
      : {}),
  });
}

/** The GenerateContentRequest for `request`; throws a ValidationError (400) for what Gemini cannot take. */
export function geminiRequest(request: ChatRequest): GeminiRequest {
  const { system, contents } = turns(request.messages);
  if (contents.length === 0)
    refuse('missing_messages', 'Gemini needs at least one user or assistant message', 'messages');
  const generationConfig = generationConfigOf(request);
  return {
    contents,
    ...(system.length ? { systemInstruction: { parts: system } } : {}),
    ...toolsOf(request),
    ...(generationConfig ? { generationConfig } : {}),
  };
}

/** The model's resource name in a path: `models/<id>` unless the id names another collection (`tunedModels/…`). */
export const geminiModelPath = (modelId: string): string =>
  modelId.includes('/') ? modelId : `models/${modelId}`;
