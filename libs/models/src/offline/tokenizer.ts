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

export const countTokens = (text: string): number =>
  text.length === 0 ? 0 : loadEncoding().countTokens(text, AS_PLAIN_TEXT);

export const encodeTokens = (text: string): number[] => loadEncoding().encode(text, AS_PLAIN_TEXT);

/**
 * The longest prefix of `text` that fits in `maxTokens` tokens. The result is always a prefix of `text` (a token
 * that ends inside a multi-byte character is dropped whole) and re-encodes to at most `maxTokens` tokens.
 */
export const truncateToTokens = (text: string, maxTokens: number): string => {
  const tokens = encodeTokens(text);
  if (tokens.length <= maxTokens) return text;
  const enc = loadEncoding();
  for (let n = Math.max(0, Math.floor(maxTokens)); n > 0; n--) {
    const prefix = enc.decode(tokens.slice(0, n));
    if (text.startsWith(prefix) && countTokens(prefix) <= maxTokens) return prefix;
  }
  return '';
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
