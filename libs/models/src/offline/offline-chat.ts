// The offline chat model: no language model at all, a deterministic stand-in that says so. The reply is derived
// from the conversation only (same request → same reply): given retrieved sources (the grounding format: a system
// message, `search_knowledge` results) it quotes and cites the passages sharing most words with the question;
// without them it quotes the last user message verbatim, or answers a tool result with "The tool returned: …".
// A memory extraction request (`memory-extraction.ts`) is answered with the candidates JSON, found by plain
// statement patterns in the turn's user message (`offline-memory.ts`).
// It calls the first offered function tool (or the one `tool_choice` names) with arguments built from the tool's
// JSON Schema, except `search_knowledge`, which it calls only when the user asks to search (and only once a turn),
// so an Agent's tool loop ends, and the Skill tools (`offline-skills.ts`): `load_skill` only when the user's message
// names or describes a Skill of the manifest (once a turn, before other tools), then `read_skill_file` only when the
// message names one of the loaded Skill's files (once); after them it answers following the Skill. `run_code` it calls
// only when the user's message holds a fenced code block (```python, ```sh…; `code-prompt.ts`), with that code, once
// a turn and before any other tool; after its result it answers with the exit code and the start of the output.
// `max_completion_tokens`/`max_tokens` and `stop` are honoured like an upstream does; `seed`, `temperature` and the
// like change nothing.
// Over 300 lines on purpose: the offline model decides every reply of a request in one place (tools in order of
// precedence, then grounded, remembered, skill and code answers); the formats it reads live in their own modules.
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  ChatCompletionContentPart,
  ChatCompletionContentPartRefusal,
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { sha256, ValidationError } from '#kernel';
import {
  isSourcesText,
  MEMORIES_HEADER,
  parseMemories,
  parseSources,
  SEARCH_KNOWLEDGE_TOOL,
  type PromptSource,
} from '../grounding.js';
import {
  fencedCode,
  parseCodeResult,
  RUN_CODE_TOOL,
  type CodeResult,
  type FencedCode,
} from '../code-prompt.js';
import { MEMORY_EXTRACTION_HEADER } from '../memory-extraction.js';
import type { ChatDelta, ChatRequest, ChatResult } from '../provider.port.js';
import {
  LOAD_SKILL_TOOL,
  parseLoadedSkill,
  parseSkillFile,
  parseSkillsManifest,
  READ_SKILL_FILE_TOOL,
  type LoadedSkill,
  type PromptSkill,
  type SkillFile,
} from '../skills-prompt.js';
import {
  ALSO_REMEMBERED,
  groundedAnswer,
  OFFLINE_GROUNDED_PREFIX,
  OFFLINE_REMEMBERED_PREFIX,
  rememberedAnswer,
  searchQueryOf,
} from './grounded-answer.js';
import { offlineMemoryReply } from './offline-memory.js';
import {
  ALSO_FOLLOWING,
  followingSkill,
  OFFLINE_SKILL_PREFIX,
  skillFileNamed,
  skillToLoad,
} from './offline-skills.js';
import { exampleForSchema } from './schema-example.js';
import { countMessageTokens, countTokens, truncateToTokens } from '#tokenizer';

export const OFFLINE_REPLY_PREFIX = 'Offline model reply: ';
export const OFFLINE_CODE_PREFIX =
  'Offline stand-in answer (no language model was called), after running the code: ';
/** Characters of a run's stdout quoted in the answer after it. */
const CODE_OUTPUT_QUOTE = 200;
/** Characters of argument JSON per streamed tool-call fragment. */
const ARGUMENT_FRAGMENT = 8;

export interface OfflineChatOptions {
  /** Pause between streamed pieces, in milliseconds; 0 (the default) streams as fast as the consumer reads. */
  readonly wordDelayMs?: number;
}

type Part = ChatCompletionContentPart | ChatCompletionContentPartRefusal;

const textOf = (content: string | readonly Part[] | null | undefined): string => {
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content
    .map((part) => (part.type === 'text' ? part.text : part.type === 'refusal' ? part.refusal : ''))
    .filter((text) => text.length > 0)
    .join('\n');
};

const nonTextParts = (content: string | readonly Part[] | null | undefined): number =>
  Array.isArray(content) ? content.filter((part) => part.type !== 'text').length : 0;

const countWords = (text: string): number =>
  text.match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu)?.length ?? 0;

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

const lastUserMessage = (messages: readonly ChatCompletionMessageParam[]) =>
  messages.findLast((message) => message.role === 'user');

/** The trailing tool (or legacy function) results: what the model answers after its tool call. */
const trailingToolResults = (messages: readonly ChatCompletionMessageParam[]): string[] => {
  const results: string[] = [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message.role !== 'tool' && message.role !== 'function') break;
    results.unshift(textOf(message.content));
  }
  return results;
};

const isToolResult = (message: ChatCompletionMessageParam): boolean =>
  message.role === 'tool' || message.role === 'function';

/** The messages after the last user message: the current turn's tool calls and results. */
const currentTurn = (
  messages: readonly ChatCompletionMessageParam[],
): readonly ChatCompletionMessageParam[] =>
  messages.slice(messages.findLastIndex((message) => message.role === 'user') + 1);

/**
 * The sources of the turn: the last system message in the grounding format and the `search_knowledge` results
 * after the last user message (earlier turns' results may reuse numbers); the first of a number wins. Undefined
 * when the request has no sources block at all, an empty list when its blocks found nothing.
 */
const turnSources = (messages: readonly ChatCompletionMessageParam[]): PromptSource[] | undefined => {
  const system = messages.findLast(
    (message) =>
      (message.role === 'system' || message.role === 'developer') && isSourcesText(textOf(message.content)),
  );
  const found = currentTurn(messages).filter(
    (message) => isToolResult(message) && isSourcesText(textOf(message.content)),
  );
  const blocks = system ? [system, ...found] : found;
  if (blocks.length === 0) return undefined;
  const byIndex = new Map<number, PromptSource>();
  for (const message of blocks)
    for (const source of parseSources(textOf(message.content)))
      if (!byIndex.has(source.index)) byIndex.set(source.index, source);
  return [...byIndex.values()];
};

/** The memories the turn recalled (the last memories block of the system messages). */
const turnMemories = (messages: readonly ChatCompletionMessageParam[]): string[] => {
  const block = messages.findLast(
    (message) =>
      (message.role === 'system' || message.role === 'developer') &&
      textOf(message.content).startsWith(MEMORIES_HEADER),
  );
  return block ? parseMemories(textOf(block.content)).map((memory) => memory.text) : [];
};

/** The Skills of the manifest in the system messages (the last one listing any), in its order. */
const turnSkills = (messages: readonly ChatCompletionMessageParam[]): PromptSkill[] => {
  for (const message of messages.toReversed()) {
    if (message.role !== 'system' && message.role !== 'developer') continue;
    const skills = parseSkillsManifest(textOf(message.content));
    if (skills.length > 0) return skills;
  }
  return [];
};

/** The names of the functions the model called in the current turn. */
const turnCalls = (messages: readonly ChatCompletionMessageParam[]): string[] =>
  currentTurn(messages).flatMap((message) =>
    message.role === 'assistant'
      ? (message.tool_calls ?? []).flatMap((call) => (call.type === 'function' ? [call.function.name] : []))
      : [],
  );

/** The results of the current turn's tool calls, read with `parse`; the last one read wins. */
const lastTurnResult = <T>(
  messages: readonly ChatCompletionMessageParam[],
  parse: (text: string) => T | undefined,
): T | undefined =>
  currentTurn(messages)
    .filter(isToolResult)
    .map((message) => parse(textOf(message.content)))
    .findLast((value) => value !== undefined);

/** The Skill loaded in the current turn (the last `load_skill` result), if any. */
const turnLoadedSkill = (messages: readonly ChatCompletionMessageParam[]): LoadedSkill | undefined =>
  lastTurnResult(messages, parseLoadedSkill);

/** The file of `skill` read in the current turn (the last `read_skill_file` result of that Skill), if any. */
const turnSkillFile = (
  messages: readonly ChatCompletionMessageParam[],
  skill: string,
): SkillFile | undefined =>
  lastTurnResult(messages, (text) => {
    const file = parseSkillFile(text);
    return file?.skill.toLowerCase() === skill.toLowerCase() ? file : undefined;
  });

/** The Skill the user's message names or describes, when the turn has not loaded one yet. */
const skillAsked = (messages: readonly ChatCompletionMessageParam[]): PromptSkill | undefined => {
  const user = lastUserMessage(messages);
  if (!user || turnCalls(messages).includes(LOAD_SKILL_TOOL) || turnLoadedSkill(messages)) return undefined;
  return skillToLoad(textOf(user.content), turnSkills(messages));
};

/** The file of the loaded Skill the user's message names, when the turn has read none yet. */
const skillFileAsked = (
  messages: readonly ChatCompletionMessageParam[],
): { skill: string; file: string } | undefined => {
  const loaded = turnLoadedSkill(messages);
  const user = lastUserMessage(messages);
  if (!loaded || !user || turnCalls(messages).includes(READ_SKILL_FILE_TOOL)) return undefined;
  const file = skillFileNamed(textOf(user.content), loaded.files);
  return file === undefined ? undefined : { skill: loaded.name, file };
};

/** The code the user's message holds in a fenced block, when the turn has not run code yet. */
const codeAsked = (messages: readonly ChatCompletionMessageParam[]): FencedCode | undefined => {
  const user = lastUserMessage(messages);
  if (!user || turnCalls(messages).includes(RUN_CODE_TOOL) || lastTurnResult(messages, parseCodeResult))
    return undefined;
  return fencedCode(textOf(user.content));
};

/** The answer after a `run_code` result: `exit <n>; output: <start of stdout>`, then the files it left. */
const codeAnswer = (result: CodeResult): string => {
  const status = result.timedOut
    ? 'timed out'
    : `exit ${result.exitCode === null ? 'none' : String(result.exitCode)}`;
  const output = Array.from(result.stdout.trim()).slice(0, CODE_OUTPUT_QUOTE).join('');
  const files = result.files.length > 0 ? ` Files: ${result.files.join(', ')}` : '';
  return `${OFFLINE_CODE_PREFIX}${status}; output: ${output === '' ? '(none)' : output}${files}`;
};

/** What the sources and memories of the turn answer, when the turn has any. */
const knowledgeReply = (messages: readonly ChatCompletionMessageParam[]): string | undefined => {
  const sources = turnSources(messages);
  const question = lastUserMessage(messages);
  const remembered = question ? rememberedAnswer(textOf(question.content), turnMemories(messages)) : null;
  if (sources && question) {
    const grounded = groundedAnswer(textOf(question.content), sources);
    if (!remembered) return grounded;
    return grounded.startsWith(OFFLINE_GROUNDED_PREFIX)
      ? `${grounded}${ALSO_REMEMBERED}${remembered}`
      : `${OFFLINE_REMEMBERED_PREFIX}${remembered}`;
  }
  return remembered ? `${OFFLINE_REMEMBERED_PREFIX}${remembered}` : undefined;
};

/**
 * After a Skill was loaded: the answer of the sources or memories (when they answer) followed by the Skill part,
 * or the Skill part alone. See {@link followingSkill}.
 */
const skillReply = (messages: readonly ChatCompletionMessageParam[]): string | undefined => {
  const loaded = turnLoadedSkill(messages);
  if (!loaded) return undefined;
  const part = followingSkill(loaded, turnSkillFile(messages, loaded.name));
  const known = knowledgeReply(messages);
  return known?.startsWith(OFFLINE_GROUNDED_PREFIX) || known?.startsWith(OFFLINE_REMEMBERED_PREFIX)
    ? `${known}${ALSO_FOLLOWING}${part}`
    : `${OFFLINE_SKILL_PREFIX}${part}`;
};

const textReply = (messages: readonly ChatCompletionMessageParam[]): string => {
  const ran = lastTurnResult(messages, parseCodeResult);
  if (ran) return codeAnswer(ran);
  const answered = skillReply(messages) ?? knowledgeReply(messages);
  if (answered !== undefined) return answered;
  const toolResults = trailingToolResults(messages);
  if (toolResults.length > 0)
    return OFFLINE_REPLY_PREFIX + toolResults.map((result) => `The tool returned: ${result}`).join('\n');
  const user = lastUserMessage(messages);
  if (!user) return `${OFFLINE_REPLY_PREFIX}there is no user message to answer.`;
  const text = textOf(user.content);
  const attachments = nonTextParts(user.content);
  return (
    `${OFFLINE_REPLY_PREFIX}you said "${text}" (${plural(countWords(text), 'word')}, ` +
    `${plural(Array.from(text).length, 'character')}` +
    (attachments > 0 ? `, and ${plural(attachments, 'non-text part')}` : '') +
    '). This is a deterministic offline stand-in; no language model was called.'
  );
};

/** Whether the user asks to search and the turn has not searched yet: one search a turn, then an answer. */
const searchAsked = (messages: readonly ChatCompletionMessageParam[]): boolean => {
  const user = lastUserMessage(messages);
  return (
    user !== undefined &&
    searchQueryOf(textOf(user.content)) !== undefined &&
    !currentTurn(messages).some(isToolResult)
  );
};

/** The built-in tools called only when the conversation asks for them, never just because they are offered. */
const ON_REQUEST: ReadonlySet<string> = new Set([
  SEARCH_KNOWLEDGE_TOOL,
  LOAD_SKILL_TOOL,
  READ_SKILL_FILE_TOOL,
  RUN_CODE_TOOL,
]);

/**
 * The tool the model picks itself: `run_code` when the message holds a fenced code block, `search_knowledge` when
 * asked, `load_skill` when a Skill is named or described, else any other tool always (or, when one is required, the
 * first built-in offered of search, load, read, run).
 */
const pickTool = (
  request: ChatRequest,
  tools: readonly ChatCompletionFunctionTool[],
  required: boolean,
): ChatCompletionFunctionTool | undefined => {
  const named = (name: string) => tools.find((tool) => tool.function.name === name);
  const run = named(RUN_CODE_TOOL);
  if (run && codeAsked(request.messages)) return run;
  // A message holding code to run is about that code: its words do not ask for a search or a Skill.
  const user = lastUserMessage(request.messages);
  const codeTurn = run !== undefined && user !== undefined && fencedCode(textOf(user.content)) !== undefined;
  const search = named(SEARCH_KNOWLEDGE_TOOL);
  if (search && !codeTurn && searchAsked(request.messages)) return search;
  const load = named(LOAD_SKILL_TOOL);
  if (load && !codeTurn && skillAsked(request.messages)) return load;
  return (
    tools.find((tool) => !ON_REQUEST.has(tool.function.name)) ??
    (required ? (search ?? load ?? named(READ_SKILL_FILE_TOOL) ?? run) : undefined)
  );
};

const allowedNames = (choice: ChatRequest['tool_choice']): string[] =>
  typeof choice === 'object' && choice.type === 'allowed_tools'
    ? choice.allowed_tools.tools.flatMap((entry) => {
        const fn = entry.function;
        const name = typeof fn === 'object' && fn !== null && 'name' in fn ? fn.name : undefined;
        return typeof name === 'string' ? [name] : [];
      })
    : [];

/** Whether `tool_choice` lets the model call the named function of its own accord. */
const choiceAllows = (choice: ChatRequest['tool_choice'], name: string): boolean => {
  if (choice === undefined || choice === 'auto' || choice === 'required') return true;
  if (typeof choice !== 'object') return false;
  if (choice.type === 'function') return choice.function.name === name;
  return allowedNames(choice).includes(name);
};

/** The function tool to call, or undefined to answer in text. */
const chosenTool = (request: ChatRequest): ChatCompletionFunctionTool | undefined => {
  const tools = (request.tools ?? []).filter(
    (tool): tool is ChatCompletionFunctionTool => tool.type === 'function',
  );
  const choice = request.tool_choice;
  if (tools.length === 0 || choice === 'none') return undefined;
  const byName = (name: string) => tools.find((tool) => tool.function.name === name);
  if (trailingToolResults(request.messages).length > 0) {
    // The one call after a tool result: the reference file named in the message, once a Skill is loaded.
    const read = byName(READ_SKILL_FILE_TOOL);
    return read && choiceAllows(choice, READ_SKILL_FILE_TOOL) && skillFileAsked(request.messages)
      ? read
      : undefined;
  }
  if (typeof choice === 'object' && choice.type === 'function') {
    const tool = byName(choice.function.name);
    if (!tool)
      throw new ValidationError(
        'unknown_tool',
        `tool_choice names the function '${choice.function.name}', which is not among the tools`,
        'tool_choice',
      );
    return tool;
  }
  if (typeof choice === 'object' && choice.type === 'allowed_tools') {
    const allowed = allowedNames(choice).flatMap((name) => {
      const tool = byName(name);
      return tool ? [tool] : [];
    });
    return pickTool(request, allowed, choice.allowed_tools.mode === 'required');
  }
  if (typeof choice === 'object' && choice.type === 'custom') return undefined;
  return pickTool(request, tools, choice === 'required');
};

/** The Skill `load_skill` is called with: the one asked for, or (when the call is forced) the manifest's first. */
const skillToCall = (messages: readonly ChatCompletionMessageParam[], said: string): string => {
  const skills = turnSkills(messages);
  return (skillToLoad(said, skills) ?? skills[0])?.name ?? said;
};

/**
 * The arguments of `read_skill_file`: the file the message names of the loaded Skill (else of the Skill asked for,
 * else of the manifest's first), or a search of that Skill's files for the message when it names none.
 */
const skillFileToRead = (
  messages: readonly ChatCompletionMessageParam[],
  said: string,
): { skill: string; file: string } | { skill: string; query: string } => {
  const asked = skillFileAsked(messages);
  if (asked) return asked;
  const skills = turnSkills(messages);
  const skill: { name: string; files?: readonly string[] } | undefined =
    turnLoadedSkill(messages) ?? skillToLoad(said, skills) ?? skills[0];
  if (!skill) return { skill: '', query: said };
  const file = skillFileNamed(said, skill.files ?? []);
  return file === undefined ? { skill: skill.name, query: said } : { skill: skill.name, file };
};

const toolCallFor = (
  request: ChatRequest,
  tool: ChatCompletionFunctionTool,
): ChatCompletionMessageFunctionToolCall => {
  const said = textOf(lastUserMessage(request.messages)?.content);
  const args = JSON.stringify(
    tool.function.name === SEARCH_KNOWLEDGE_TOOL
      ? { query: searchQueryOf(said) ?? said }
      : tool.function.name === LOAD_SKILL_TOOL
        ? { name: skillToCall(request.messages, said) }
        : tool.function.name === READ_SKILL_FILE_TOOL
          ? skillFileToRead(request.messages, said)
          : ((tool.function.name === RUN_CODE_TOOL ? fencedCode(said) : undefined) ??
            exampleForSchema(tool.function.parameters ?? { type: 'object', properties: {} }, said)),
  );
  const id = `call_${sha256(JSON.stringify([request.messages, tool.function.name, args])).slice(0, 24)}`;
  return { id, type: 'function', function: { name: tool.function.name, arguments: args } };
};

/**
 * The answer to a memory extraction request (its first system message starts with the extraction header): the
 * candidates JSON of the turn in its last user message; undefined for any other request.
 */
const memoryReply = (messages: readonly ChatCompletionMessageParam[]): string | undefined => {
  const system = messages.find((message) => message.role === 'system' || message.role === 'developer');
  if (!system || !textOf(system.content).trimStart().startsWith(MEMORY_EXTRACTION_HEADER)) return undefined;
  return offlineMemoryReply(textOf(lastUserMessage(messages)?.content));
};

/** Content for `response_format`: JSON valid for the given schema, or a JSON object wrapping the text reply. */
const formatted = (request: ChatRequest, reply: string): string => {
  const format = request.response_format;
  if (format?.type === 'json_schema')
    return JSON.stringify(
      exampleForSchema(format.json_schema.schema ?? {}, textOf(lastUserMessage(request.messages)?.content)),
    );
  if (format?.type === 'json_object') return JSON.stringify({ reply });
  return reply;
};

const stopSequences = (stop: ChatRequest['stop']): string[] =>
  (typeof stop === 'string' ? [stop] : (stop ?? [])).filter((sequence) => sequence.length > 0);

/** Cuts at the earliest stop sequence, then at the token limit: the finish reason says which, if any, applied. */
const limit = (request: ChatRequest, text: string): { content: string; finishReason: 'stop' | 'length' } => {
  let content = text;
  for (const sequence of stopSequences(request.stop)) {
    const at = content.indexOf(sequence);
    if (at >= 0) content = content.slice(0, at);
  }
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (typeof maxTokens === 'number') {
    const truncated = truncateToTokens(content, maxTokens);
    if (truncated !== content) return { content: truncated, finishReason: 'length' };
  }
  return { content, finishReason: 'stop' };
};

/** The complete answer to a request; the streamed answer is this, cut in pieces. */
export const offlineChat = (request: ChatRequest): ChatResult => {
  const inputTokens = countMessageTokens(request.messages, request.tools, request.tool_choice);
  const tool = chosenTool(request);
  if (tool) {
    // A tool call is short and always complete: the token limit and stop sequences apply to text only.
    const call = toolCallFor(request, tool);
    return {
      message: { role: 'assistant', content: null, refusal: null, tool_calls: [call] },
      finishReason: 'tool_calls',
      usage: {
        inputTokens,
        cachedInputTokens: 0,
        outputTokens: countTokens(call.function.name) + countTokens(call.function.arguments),
      },
    };
  }
  // A memory extraction is answered with its candidates JSON whatever `response_format` asks: it is the JSON wanted.
  const reply = memoryReply(request.messages) ?? formatted(request, textReply(request.messages));
  const { content, finishReason } = limit(request, reply);
  return {
    message: { role: 'assistant', content, refusal: null },
    finishReason,
    usage: { inputTokens, cachedInputTokens: 0, outputTokens: countTokens(content) },
  };
};

/** Word-sized pieces whose concatenation is exactly `text` (each word carries its trailing whitespace). */
export const splitWords = (text: string): string[] => [...wordsOf(text)];

const fragments = (text: string, size: number): string[] => {
  const chars = Array.from(text);
  const pieces: string[] = [];
  for (let index = 0; index < chars.length; index += size)
    pieces.push(chars.slice(index, index + size).join(''));
  return pieces;
};

/** Word-sized pieces of `text`, as splitWords cuts it, one at a time (a long answer is never held twice). */
function* wordsOf(text: string): Generator<string> {
  for (const [piece] of text.matchAll(/\S*\s*/gu)) if (piece !== '') yield piece;
}

/** The deltas of an answer, made as they are pulled: a stalled client holds one, not the whole answer cut up. */
function* deltasOf(result: ChatResult): Generator<ChatDelta> {
  const { message, finishReason, usage } = result;
  const call = message.tool_calls?.[0];
  if (call?.type === 'function') {
    yield {
      delta: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
        ],
      },
      finishReason: null,
    };
    for (const fragment of fragments(call.function.arguments, ARGUMENT_FRAGMENT))
      yield {
        delta: { tool_calls: [{ index: 0, function: { arguments: fragment } }] },
        finishReason: null,
      };
  } else {
    yield { delta: { role: 'assistant', content: '' }, finishReason: null };
    for (const word of wordsOf(message.content ?? '')) yield { delta: { content: word }, finishReason: null };
  }
  yield { delta: {}, finishReason, usage };
}

/** Streams {@link offlineChat}'s answer piece by piece; an aborted `signal` ends it with the signal's reason. */
export async function* offlineChatStream(
  request: ChatRequest,
  signal: AbortSignal,
  options: OfflineChatOptions = {},
): AsyncGenerator<ChatDelta> {
  signal.throwIfAborted();
  yield* streamChatResult(offlineChat(request), signal, options);
}

/** Streams a computed answer piece by piece (word by word, tool-call arguments in fragments). */
export async function* streamChatResult(
  result: ChatResult,
  signal: AbortSignal,
  options: OfflineChatOptions = {},
): AsyncGenerator<ChatDelta> {
  const delayMs = options.wordDelayMs ?? 0;
  let index = 0;
  for (const delta of deltasOf(result)) {
    if (delayMs > 0 && index > 0) {
      try {
        await sleep(delayMs, undefined, { signal });
      } catch (error) {
        signal.throwIfAborted();
        throw error;
      }
    }
    signal.throwIfAborted();
    yield delta;
    index++;
  }
}
