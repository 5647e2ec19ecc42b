// Token counting for the offline provider and for usage estimates: gpt-tokenizer's o200k_base encoding (the one of
// the GPT-4o / GPT-5 families). The encoding's merge table costs about 65 MB of RSS, so it is loaded on first use,
// synchronously through `require` (the CommonJS build), never at import: a process that never counts pays nothing.
import { createRequire } from 'node:module';
import type { GptEncoding } from 'gpt-tokenizer/GptEncoding';
import type {
  ChatCompletionContentPart,
  ChatCompletionContentPartRefusal,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';

export const TOKENIZER_ENCODING = 'o200k_base';

/** Text that looks like a special token (`<|endoftext|>`) is counted as ordinary text, as tiktoken's `disallowed_special=()`. */
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

let encoding: GptEncoding | undefined;

const loadEncoding = (): GptEncoding => {
  if (!encoding) {
    const module = createRequire(import.meta.url)(`gpt-tokenizer/encoding/${TOKENIZER_ENCODING}`) as {
      default: GptEncoding;
    };
    encoding = module.default;
  }
  return encoding;
};

/**
 * Whether this thread has loaded the encoder. Loading it takes ≈ 0.3 s of one thread's time, so a caller that can
 * count elsewhere (the offline pool, while a worker thread runs) does so until this thread has it.
 */
export const encoderLoaded = (): boolean => encoding !== undefined;

/**
 * BPE is far worse than linear in the length of one pre-tokenized piece (100,000 characters without whitespace took
 * 6.5 s, 400,000 took 209 s), and a piece is a whole run of letters, digits or symbols. So text is cut into segments
 * before it reaches the encoder: at a whitespace that starts a word once a segment holds SEGMENT_CHARS (the encoder's
 * own pre-tokenizer splits there too, so ordinary text counts exactly), and inside any run of MAX_RUN_CHARS characters
 * without whitespace (a piece the encoder would have kept whole, so such runs count within a few percent). Every
 * encoder call then sees a bounded piece and the whole text costs linear time.
 */
export const SEGMENT_CHARS = 1024;
export const MAX_RUN_CHARS = 128;

const isSpace = (code: number): boolean =>
  code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0 || code === 0x3000 || code === 0x85;

/** The segments of `text`, in order; their concatenation is `text`. Never cuts a surrogate pair. */
export function* segments(text: string): Generator<string> {
  let start = 0;
  let run = 0;
  let inSpace = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const space = isSpace(code);
    if (space !== inSpace) {
      // A whitespace that follows a non-space begins the next word: a boundary the pre-tokenizer has too.
      if (space && i - start >= SEGMENT_CHARS) {
        yield text.slice(start, i);
        start = i;
      }
      inSpace = space;
      run = 0;
    }
    run++;
    const lowSurrogate = code >= 0xdc00 && code <= 0xdfff;
    if (run > MAX_RUN_CHARS && !lowSurrogate) {
      yield text.slice(start, i);
      start = i;
      run = 1;
    }
  }
  if (start < text.length) yield text.slice(start);
}

export const countTokens = (text: string): number => {
  if (text.length === 0) return 0;
  const enc = loadEncoding();
  if (text.length <= MAX_RUN_CHARS) return enc.countTokens(text, AS_PLAIN_TEXT);
  let total = 0;
  for (const segment of segments(text)) total += enc.countTokens(segment, AS_PLAIN_TEXT);
  return total;
};

export const encodeTokens = (text: string): number[] => {
  const enc = loadEncoding();
  const tokens: number[] = [];
  for (const segment of segments(text))
    for (const token of enc.encode(segment, AS_PLAIN_TEXT)) tokens.push(token);
  return tokens;
};

/**
 * The longest prefix of `text` that fits in `maxTokens` tokens. The result is always a prefix of `text` (a token
 * that ends inside a multi-byte character is dropped whole) and re-encodes to at most `maxTokens` tokens. Segments
 * are taken whole while they fit, so the cost is linear in the prefix kept, not in `text`.
 */
export const truncateToTokens = (text: string, maxTokens: number): string => {
  const limit = Math.max(0, Math.floor(maxTokens));
  const enc = loadEncoding();
  let kept = 0;
  let used = 0;
  for (const segment of segments(text)) {
    const tokens = enc.encode(segment, AS_PLAIN_TEXT);
    if (used + tokens.length <= limit) {
      used += tokens.length;
      kept += segment.length;
      continue;
    }
    for (let n = limit - used; n > 0; n--) {
      const prefix = enc.decode(tokens.slice(0, n));
      if (segment.startsWith(prefix) && enc.countTokens(prefix, AS_PLAIN_TEXT) <= limit - used)
        return text.slice(0, kept) + prefix;
    }
    return text.slice(0, kept);
  }
  return text;
};

// The chat overheads below follow OpenAI's published counting recipe as gpt-tokenizer implements it
// (`computeChatCompletionTokenCount`): 3 tokens per message plus its role, 1 more for a name, 3 to prime the reply,
// tool definitions rendered as the TypeScript-like namespace the model sees plus 9. Tool calls are counted like the
// legacy function_call (name + arguments + 3); tool results like any message (the call id is not counted).
const PER_MESSAGE = 3;
const PER_NAME = 1;
const REPLY_PRIMING = 3;
const FUNCTION_ROLE_DISCOUNT = 2;
const PER_TOOL_CALL = 3;
const TOOLS_OVERHEAD = 9;
const SYSTEM_WITH_TOOLS_DEDUCTION = 4;
const TOOL_CHOICE_NONE = 1;
const TOOL_CHOICE_NAMED = 4;
/** A non-text content part (image, audio, file) is not tokenized; it counts as a low-detail image does upstream. */
export const NON_TEXT_PART_TOKENS = 85;

type Part = ChatCompletionContentPart | ChatCompletionContentPartRefusal;

const contentTokens = (
  content: string | readonly Part[] | null | undefined,
  padWithNewline: boolean,
): number => {
  if (content === null || content === undefined) return 0;
  if (typeof content === 'string') {
    const text = padWithNewline && content.length > 0 && !content.endsWith('\n') ? `${content}\n` : content;
    return countTokens(text);
  }
  let tokens = 0;
  for (const part of content)
    if (part.type === 'text') tokens += countTokens(part.text);
    else if (part.type === 'refusal') tokens += countTokens(part.refusal);
    else tokens += NON_TEXT_PART_TOKENS;
  return tokens;
};

const messageTokens = (message: ChatCompletionMessageParam, padSystem: boolean): number => {
  let tokens = PER_MESSAGE + countTokens(message.role) + contentTokens(message.content, padSystem);
  if ('name' in message && message.name) tokens += countTokens(message.name) + PER_NAME;
  if (message.role === 'assistant') {
    if (message.refusal) tokens += countTokens(message.refusal);
    if (message.function_call)
      tokens +=
        countTokens(message.function_call.name) +
        countTokens(message.function_call.arguments) +
        PER_TOOL_CALL;
    for (const call of message.tool_calls ?? [])
      tokens +=
        call.type === 'function'
          ? countTokens(call.function.name) + countTokens(call.function.arguments) + PER_TOOL_CALL
          : countTokens(call.custom.name) + countTokens(call.custom.input) + PER_TOOL_CALL;
  }
  if (message.role === 'function') tokens -= FUNCTION_ROLE_DISCOUNT;
  return tokens;
};

/**
 * Input tokens of a chat request: the messages (tool calls and tool results included), the tool definitions and
 * the tool choice, with the per-message overheads of the chat format.
 */
export const countMessageTokens = (
  messages: readonly ChatCompletionMessageParam[],
  tools?: readonly ChatCompletionTool[] | null,
  toolChoice?: ChatCompletionToolChoiceOption | null,
): number => {
  const hasTools = (tools?.length ?? 0) > 0;
  let systemPadded = false;
  let total = REPLY_PRIMING;
  for (const message of messages) {
    // With tools the first system message is followed by the tool namespace, after a newline.
    const pad = hasTools && !systemPadded && message.role === 'system';
    if (pad) systemPadded = true;
    total += messageTokens(message, pad);
  }
  if (hasTools && tools) {
    total += countTokens(formatTools(tools)) + TOOLS_OVERHEAD;
    if (messages.some((message) => message.role === 'system')) total -= SYSTEM_WITH_TOOLS_DEDUCTION;
  }
  if (toolChoice === 'none') total += TOOL_CHOICE_NONE;
  else if (typeof toolChoice === 'object' && toolChoice !== null) {
    if (toolChoice.type === 'function') total += countTokens(toolChoice.function.name) + TOOL_CHOICE_NAMED;
    else if (toolChoice.type === 'custom') total += countTokens(toolChoice.custom.name) + TOOL_CHOICE_NAMED;
  }
  return total;
};

// ---- Tool definitions as the model sees them (same text as gpt-tokenizer's `formatFunctionDefinitions`) ----

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const schemaType = (schema: Record<string, unknown>): unknown =>
  Array.isArray(schema.type) ? schema.type[0] : schema.type;

const formatType = (schema: unknown, indent: number): string => {
  if (!isRecord(schema)) return 'any';
  const values = Array.isArray(schema.enum) ? schema.enum : undefined;
  switch (schemaType(schema)) {
    case 'string':
      return values ? values.map((value) => JSON.stringify(value)).join(' | ') : 'string';
    case 'integer':
    case 'number':
      return values ? values.map((value) => String(value)).join(' | ') : 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return schema.items === undefined ? 'any[]' : `${formatType(schema.items, indent)}[]`;
    case 'object':
      return `{\n${formatProperties(schema, indent + 2)}\n${' '.repeat(indent)}}`;
    default:
      return 'any';
  }
};

const formatProperties = (schema: Record<string, unknown>, indent: number): string => {
  if (!isRecord(schema.properties)) return '';
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const pad = ' '.repeat(indent);
  const lines: string[] = [];
  for (const [name, property] of Object.entries(schema.properties)) {
    if (isRecord(property) && typeof property.description === 'string' && property.description && indent < 2)
      lines.push(`${pad}// ${property.description}`);
    lines.push(`${pad}${name}${required.has(name) ? '' : '?'}: ${formatType(property, indent)},`);
  }
  return lines.join('\n');
};

const formatTools = (tools: readonly ChatCompletionTool[]): string => {
  const lines = ['namespace functions {', ''];
  for (const tool of tools) {
    const { name, description } = tool.type === 'function' ? tool.function : tool.custom;
    if (description) lines.push(`// ${description}`);
    const parameters = tool.type === 'function' ? tool.function.parameters : undefined;
    if (!parameters || !isRecord(parameters.properties) || Object.keys(parameters.properties).length === 0)
      lines.push(`type ${name} = () => any;`);
    else {
      lines.push(`type ${name} = (_: {`);
      const properties = formatProperties(parameters, 0);
      if (properties.length > 0) lines.push(properties);
      lines.push('}) => any;');
    }
    lines.push('');
  }
  lines.push('} // namespace functions');
  return lines.join('\n');
};
