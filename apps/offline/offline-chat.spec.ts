import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { z } from 'zod';
import {
  citationMarkers,
  formatSourcesBlock,
  formatToolSources,
  OFFLINE_GROUNDED_PREFIX,
  OFFLINE_UNGROUNDED_PREFIX,
  type PromptSource,
} from '#conversations';
import { formatMemoriesBlock, parseMemories } from '#memory';
import { formatCodeResult } from '#code-execution';
import { formatLoadedSkill, formatSkillFile, formatSkillsManifest, type PromptSkill } from '#skills';
import type { ChatDelta, ChatRequest, ChatResult } from '#model-providers';
import {
  OFFLINE_REPLY_PREFIX,
  offlineChat,
  offlineChatStream,
  splitWords,
} from '#model-providers/offline/offline-chat';
import './offline-responders.js';
import { countMessageTokens, countTokens } from '#tokenizer';

const QUESTION = 'What is the weather in Paris today?';
const ask = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content },
  ],
  ...extra,
});
const never = () => new AbortController().signal;

const collect = async (stream: AsyncIterable<ChatDelta>): Promise<ChatDelta[]> => {
  const deltas: ChatDelta[] = [];
  for await (const delta of stream) deltas.push(delta);
  return deltas;
};

const WeatherArgs = z.object({
  city: z.string(),
  unit: z.enum(['celsius', 'fahrenheit']),
  days: z.number().int().min(1).max(7),
  hourly: z.boolean(),
});
const weatherTool: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: z.toJSONSchema(WeatherArgs),
  },
};
const timeTool: ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } } } },
};

const searchTool: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'search_knowledge',
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  },
};

const leave: PromptSource = {
  index: 1,
  documentName: 'Staff handbook',
  sectionPath: ['Leave'],
  text: 'Employees get 25 days of paid leave each year. Unused days expire in March.',
};
const parking: PromptSource = {
  index: 2,
  documentName: 'Staff handbook',
  sectionPath: ['Parking'],
  text: 'Parking permits are issued by the facilities team.\nEach permit costs 10 euros a month.',
};
const requests: PromptSource = {
  index: 3,
  documentName: 'FAQ',
  sectionPath: [],
  text: 'Leave requests go through the HR portal. Managers approve leave within two days.',
};
/** A turn as the conversation runtime sends it: the Agent's prompt, the turn's sources, the question. */
const grounded = (
  question: string,
  sources: readonly PromptSource[],
  extra: Partial<ChatRequest> = {},
): ChatRequest => ({
  messages: [
    { role: 'system', content: 'You are the HR assistant.' },
    { role: 'system', content: formatSourcesBlock(sources) },
    { role: 'user', content: question },
  ],
  ...extra,
});
const functionCall = (result: ChatResult) => {
  const call = result.message.tool_calls?.[0];
  if (call?.type !== 'function') throw new Error('expected a function tool call');
  return call;
};

describe('Offline chat', () => {
  it('answers with an honest reply quoting the last user message', () => {
    const result = offlineChat(ask(QUESTION));
    expect(result.message.role).toBe('assistant');
    expect(result.message.content).toMatch(new RegExp(`^${OFFLINE_REPLY_PREFIX}`));
    expect(result.message.content).toContain(`"${QUESTION}"`);
    expect(result.message.content).toContain('7 words');
    expect(result.message.content).toContain('no language model');
    expect(result.finishReason).toBe('stop');
  });

  it('is deterministic and reports usage from the real tokenizer', () => {
    const request = ask(QUESTION, { seed: 42, temperature: 1.5 });
    const first = offlineChat(request);
    expect(offlineChat(structuredClone(request))).toEqual(first);
    expect(offlineChat({ ...request, seed: 7 })).toEqual(first);
    expect(first.usage).toEqual({
      inputTokens: countMessageTokens(request.messages),
      cachedInputTokens: 0,
      outputTokens: countTokens(first.message.content ?? ''),
    });
  });

  it('answers from the conversation: a different last user message gives a different reply', () => {
    const conversation: ChatCompletionMessageParam[] = [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: [{ type: 'text', text: 'second question' }] },
    ];
    const reply = offlineChat({ messages: conversation }).message.content;
    expect(reply).toContain('"second question"');
    expect(reply).not.toContain('first question');
    expect(offlineChat({ messages: [] }).message.content).toBe(
      `${OFFLINE_REPLY_PREFIX}there is no user message to answer.`,
    );
  });

  it('stops at the token limit with finish reason length', () => {
    const full = offlineChat(ask(QUESTION)).message.content ?? '';
    for (const request of [
      ask(QUESTION, { max_completion_tokens: 5 }),
      ask(QUESTION, { max_tokens: 5 }),
      ask(QUESTION, { max_tokens: 50, max_completion_tokens: 5 }),
    ]) {
      const result = offlineChat(request);
      expect(result.finishReason).toBe('length');
      expect(result.usage.outputTokens).toBe(5);
      expect(full.startsWith(result.message.content ?? '')).toBe(true);
    }
    expect(offlineChat(ask(QUESTION, { max_tokens: 1000 })).finishReason).toBe('stop');
  });

  it('cuts at the earliest stop sequence', () => {
    const result = offlineChat(ask(QUESTION, { stop: ['Paris', '"'] }));
    expect(result.message.content).toBe(`${OFFLINE_REPLY_PREFIX}you said `);
    expect(result.finishReason).toBe('stop');
    expect(offlineChat(ask(QUESTION, { stop: 'weather' })).message.content).toBe(
      `${OFFLINE_REPLY_PREFIX}you said "What is the `,
    );
  });

  it('calls the offered tool with arguments valid for its schema, then answers with the tool result', () => {
    const request = ask(QUESTION, { tools: [weatherTool, timeTool] });
    const call = offlineChat(request);
    expect(call.finishReason).toBe('tool_calls');
    expect(call.message.content).toBeNull();
    const toolCall = call.message.tool_calls?.[0];
    if (toolCall?.type !== 'function') throw new Error('expected a function tool call');
    expect(toolCall.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(toolCall.function.name).toBe('get_weather');
    const args = WeatherArgs.parse(JSON.parse(toolCall.function.arguments));
    expect(args.city).toBe(QUESTION);
    expect(call.usage.inputTokens).toBe(countMessageTokens(request.messages, request.tools));
    expect(offlineChat(request)).toEqual(call);

    const followUp = offlineChat({
      ...request,
      messages: [
        ...request.messages,
        call.message,
        { role: 'tool', tool_call_id: toolCall.id, content: '{"temperature":21,"sky":"clear"}' },
      ],
    });
    expect(followUp.finishReason).toBe('stop');
    expect(followUp.message.tool_calls).toBeUndefined();
    expect(followUp.message.content).toBe(
      `${OFFLINE_REPLY_PREFIX}The tool returned: {"temperature":21,"sky":"clear"}`,
    );
  });

  it('follows tool_choice', () => {
    const tools = [weatherTool, timeTool];
    const named = offlineChat(
      ask(QUESTION, { tools, tool_choice: { type: 'function', function: { name: 'get_time' } } }),
    );
    const namedCall = named.message.tool_calls?.[0];
    expect(namedCall?.type === 'function' && namedCall.function).toEqual({
      name: 'get_time',
      arguments: '{}',
    });
    expect(offlineChat(ask(QUESTION, { tools, tool_choice: 'none' })).finishReason).toBe('stop');
    expect(offlineChat(ask(QUESTION, { tools, tool_choice: 'required' })).finishReason).toBe('tool_calls');
    const allowed = offlineChat(
      ask(QUESTION, {
        tools,
        tool_choice: {
          type: 'allowed_tools',
          allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'get_time' } }] },
        },
      }),
    ).message.tool_calls?.[0];
    expect(allowed?.type === 'function' && allowed.function.name).toBe('get_time');
    expect(() =>
      offlineChat(ask(QUESTION, { tools, tool_choice: { type: 'function', function: { name: 'missing' } } })),
    ).toThrow(expect.objectContaining({ code: 'unknown_tool', param: 'tool_choice' }));
  });

  it('answers structured output requests with JSON valid for the schema', () => {
    const Answer = z.object({ answer: z.string(), confidence: z.number().min(0).max(1) });
    const result = offlineChat(
      ask(QUESTION, {
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'answer', schema: z.toJSONSchema(Answer) },
        },
      }),
    );
    expect(Answer.parse(JSON.parse(result.message.content ?? ''))).toEqual({
      answer: QUESTION,
      confidence: 1,
    });
    const object = offlineChat(ask(QUESTION, { response_format: { type: 'json_object' } }));
    expect(JSON.parse(object.message.content ?? '')).toEqual({ reply: expect.stringContaining(QUESTION) });
  });
});

describe('Offline chat with retrieved sources', () => {
  it('quotes the best sentence of the sources sharing most words with the question, cited [n]', () => {
    const result = offlineChat(
      grounded('How many days of paid leave do employees get?', [leave, parking, requests]),
    );
    expect(result.message.content).toBe(
      `${OFFLINE_GROUNDED_PREFIX}Employees get 25 days of paid leave each year. [1] ` +
        'Managers approve leave within two days. [3]',
    );
    expect(result.message.content).toMatch(/^Offline stand-in answer \(no language model was called\)/);
    expect(citationMarkers(result.message.content ?? '')).toEqual([1, 3]);
    expect(result.finishReason).toBe('stop');
  });

  it('breaks ties by the lower number, whatever the order of the blocks', () => {
    const result = offlineChat(grounded('Who approves parking and LEAVE?', [requests, parking, leave]));
    expect(result.message.content).toBe(
      `${OFFLINE_GROUNDED_PREFIX}Employees get 25 days of paid leave each year. [1] ` +
        'Parking permits are issued by the facilities team. [2]',
    );
  });

  it('says the sources do not answer when none shares a word, or none was found', () => {
    const question = 'What is the capital of France?';
    const expected = `${OFFLINE_UNGROUNDED_PREFIX}the retrieved sources do not answer "${question}".`;
    expect(expected).toBe(
      'Offline stand-in answer (no language model was called): the retrieved sources do not answer ' +
        '"What is the capital of France?".',
    );
    expect(offlineChat(grounded(question, [leave, parking])).message.content).toBe(expected);
    expect(offlineChat(grounded(question, [])).message.content).toBe(expected);
  });

  it('calls search_knowledge only when the user asks to search', () => {
    const tools = [searchTool];
    expect(offlineChat(grounded('What is the leave policy?', [leave], { tools })).finishReason).toBe('stop');
    expect(offlineChat(ask('What is the leave policy?', { tools })).message.content).toContain(
      `${OFFLINE_REPLY_PREFIX}you said "What is the leave policy?"`,
    );
    for (const [message, query] of [
      ['Search the knowledge base for parking permits?', 'parking permits'],
      ['Please look up the parking rules.', 'the parking rules'],
      ['find knowledge for leave!', 'leave'],
      ['Can you search for "expense claims"', '"expense claims"'],
    ] as const) {
      const result = offlineChat(grounded(message, [leave], { tools }));
      expect(result.finishReason).toBe('tool_calls');
      const call = functionCall(result);
      expect(call.function).toEqual({ name: 'search_knowledge', arguments: JSON.stringify({ query }) });
    }
  });

  it('ends the loop after the search: the answer cites the sources the tool found, with their numbers', () => {
    const request = grounded('Search the knowledge base for parking permit costs', [leave, requests], {
      tools: [searchTool],
    });
    const first = offlineChat(request);
    const call = functionCall(first);
    expect(JSON.parse(call.function.arguments)).toEqual({ query: 'parking permit costs' });

    const found = { ...parking, index: 4 };
    const followUp = offlineChat({
      ...request,
      messages: [
        ...request.messages,
        first.message,
        { role: 'tool', tool_call_id: call.id, content: formatToolSources([found]) },
      ],
    });
    expect(followUp.finishReason).toBe('stop');
    expect(followUp.message.tool_calls).toBeUndefined();
    expect(followUp.message.content).toBe(
      `${OFFLINE_GROUNDED_PREFIX}Each permit costs 10 euros a month. [4]`,
    );

    const nothing = offlineChat({
      ...request,
      messages: [
        ...request.messages,
        first.message,
        { role: 'tool', tool_call_id: call.id, content: formatToolSources([]) },
      ],
    });
    expect(nothing.message.content).toBe(
      `${OFFLINE_UNGROUNDED_PREFIX}the retrieved sources do not answer ` +
        '"Search the knowledge base for parking permit costs".',
    );
  });

  it('answers from search results alone, and ignores the results of earlier turns', () => {
    const earlier: ChatCompletionMessageParam[] = [
      { role: 'user', content: 'find parking' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'search_knowledge', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: formatToolSources([parking]) },
      { role: 'assistant', content: 'Permits cost 10 euros [2].' },
    ];
    const reply = offlineChat({
      messages: [...earlier, { role: 'user', content: 'And the parking permits?' }],
      tools: [searchTool],
    });
    expect(reply.finishReason).toBe('stop');
    expect(reply.message.content).toContain(`${OFFLINE_REPLY_PREFIX}you said "And the parking permits?"`);

    const alone = offlineChat({ messages: earlier.slice(0, 3), tools: [searchTool] });
    expect(alone.message.content).toBe(
      `${OFFLINE_GROUNDED_PREFIX}Parking permits are issued by the facilities team. [2]`,
    );
  });

  it('still calls other tools whenever offered, and search_knowledge when tool_choice names or requires it', () => {
    const both = offlineChat(
      grounded('What is the leave policy?', [leave], { tools: [searchTool, weatherTool] }),
    );
    expect(functionCall(both).function.name).toBe('get_weather');
    const searchFirst = offlineChat(
      grounded('search for leave', [leave], { tools: [weatherTool, searchTool] }),
    );
    expect(functionCall(searchFirst).function.name).toBe('search_knowledge');

    const forced = offlineChat(
      grounded('What is the leave policy?', [leave], {
        tools: [weatherTool, searchTool],
        tool_choice: { type: 'function', function: { name: 'search_knowledge' } },
      }),
    );
    expect(functionCall(forced).function).toEqual({
      name: 'search_knowledge',
      arguments: '{"query":"What is the leave policy?"}',
    });
    const required = offlineChat(
      grounded('What is the leave policy?', [leave], { tools: [searchTool], tool_choice: 'required' }),
    );
    expect(functionCall(required).function.name).toBe('search_knowledge');
    const allowedOnlySearch = offlineChat(
      grounded('What is the leave policy?', [leave], {
        tools: [weatherTool, searchTool],
        tool_choice: {
          type: 'allowed_tools',
          allowed_tools: {
            mode: 'auto',
            tools: [{ type: 'function', function: { name: 'search_knowledge' } }],
          },
        },
      }),
    );
    expect(allowedOnlySearch.finishReason).toBe('stop');
  });
});

describe('Offline chat stream', () => {
  it('streams the same content word by word, ending with the finish reason and usage', async () => {
    for (const request of [
      ask(QUESTION),
      ask(QUESTION, { max_tokens: 6 }),
      ask('  spaced\n\nout  text '),
      grounded('How many days of paid leave do employees get?', [leave, parking, requests]),
    ]) {
      const expected = offlineChat(request);
      const deltas = await collect(offlineChatStream(request, never()));
      expect(deltas[0]!.delta.role).toBe('assistant');
      expect(deltas.map((d) => d.delta.content ?? '').join('')).toBe(expected.message.content);
      expect(deltas.length).toBeGreaterThan(3);
      const last = deltas.at(-1)!;
      expect(last).toEqual({ delta: {}, finishReason: expected.finishReason, usage: expected.usage });
      expect(deltas.slice(0, -1).every((d) => d.finishReason === null && d.usage === undefined)).toBe(true);
    }
  });

  it('splits into words that concatenate back exactly', () => {
    for (const text of ['', 'one', ' a  b\tc\n', 'Offline model reply: "x"'])
      expect(splitWords(text).join('')).toBe(text);
    expect(splitWords('a b')).toEqual(['a ', 'b']);
  });

  it('streams a tool call as id and name first, then argument fragments', async () => {
    const request = ask(QUESTION, { tools: [weatherTool] });
    const expected = offlineChat(request);
    const deltas = await collect(offlineChatStream(request, never()));
    const expectedCall = expected.message.tool_calls?.[0];
    if (expectedCall?.type !== 'function') throw new Error('expected a function tool call');
    expect(deltas[0]!.delta).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        { index: 0, id: expectedCall.id, type: 'function', function: { name: 'get_weather', arguments: '' } },
      ],
    });
    const fragments = deltas.slice(1, -1).map((d) => d.delta.tool_calls?.[0]?.function?.arguments ?? '');
    expect(fragments.length).toBeGreaterThan(1);
    expect(fragments.join('')).toBe(expectedCall.function.arguments);
    expect(deltas.at(-1)).toEqual({ delta: {}, finishReason: 'tool_calls', usage: expected.usage });
  });

  it('stops yielding once aborted', async () => {
    const controller = new AbortController();
    const iterator = offlineChatStream(ask(QUESTION), controller.signal)[Symbol.asyncIterator]();
    await iterator.next();
    await iterator.next();
    controller.abort();
    await expect(iterator.next()).rejects.toMatchObject({ name: 'AbortError' });
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined });
  });

  it('stops while waiting between words when a delay is configured', async () => {
    const controller = new AbortController();
    const received: ChatDelta[] = [];
    const consuming = (async () => {
      for await (const delta of offlineChatStream(ask(QUESTION), controller.signal, { wordDelayMs: 20 })) {
        received.push(delta);
        if (received.length === 2) setTimeout(() => controller.abort(), 5);
      }
    })();
    await expect(consuming).rejects.toMatchObject({ name: 'AbortError' });
    expect(received).toHaveLength(2);
  });

  it('refuses to start with an aborted signal', async () => {
    await expect(collect(offlineChatStream(ask(QUESTION), AbortSignal.abort()))).rejects.toMatchObject({
      name: 'AbortError',
    });
  });
});

describe('Offline chat with recalled memories', () => {
  const memories = formatMemoriesBlock([
    { bucket: 'personal', text: "The user's favourite colour is teal." },
    { bucket: 'shared', text: 'Our team deploys on Fridays.' },
  ]);
  const withMemories = (question: string, ...more: { role: 'system'; content: string }[]): ChatRequest => ({
    messages: [{ role: 'system', content: memories }, ...more, { role: 'user', content: question }],
  });

  it('round-trips the memories block', () => {
    expect(parseMemories(memories)).toEqual([
      { bucket: 'personal', text: "The user's favourite colour is teal." },
      { bucket: 'shared', text: 'Our team deploys on Fridays.' },
    ]);
  });

  it('answers from the memory that shares the most with the question, saying it is a stand-in', () => {
    expect(offlineChat(withMemories('What is my favourite colour?')).message.content).toBe(
      "Offline stand-in answer (no language model was called), from memory: The user's favourite colour is teal.",
    );
  });

  it('prefers the memory when the sources do not answer, and adds it when they do', () => {
    const none = { role: 'system' as const, content: formatSourcesBlock([]) };
    expect(offlineChat(withMemories('When does the team deploy?', none)).message.content).toBe(
      'Offline stand-in answer (no language model was called), from memory: Our team deploys on Fridays.',
    );
    const source = {
      role: 'system' as const,
      content: formatSourcesBlock([
        { index: 1, documentName: 'ops.md', sectionPath: [], text: 'Deploys happen after the team review.' },
      ]),
    };
    expect(offlineChat(withMemories('When does the team deploy?', source)).message.content).toMatch(
      /\[1\] I also remember: Our team deploys on Fridays\.$/,
    );
  });

  it('answers as before when no memory shares a word with the question', () => {
    expect(offlineChat(withMemories('Hello there')).message.content).toMatch(
      /^Offline model reply: you said/,
    );
  });
});

describe('Offline chat with Skills', () => {
  const expenses: PromptSkill = {
    name: 'expense-report',
    description: 'Files an expense report from receipts and travel costs.',
    files: ['policy.md', 'data/rates.csv'],
  };
  const notes: PromptSkill = {
    name: 'release-notes',
    description: 'Writes release notes from merged pull requests.',
  };
  const loadSkillTool: ChatCompletionTool = {
    type: 'function',
    function: {
      name: 'load_skill',
      parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
  };
  const readSkillFileTool: ChatCompletionTool = {
    type: 'function',
    function: {
      name: 'read_skill_file',
      parameters: {
        type: 'object',
        properties: { skill: { type: 'string' }, file: { type: 'string' }, query: { type: 'string' } },
        required: ['skill'],
      },
    },
  };
  const skillTools = [loadSkillTool, readSkillFileTool];
  /** A turn as the runtime sends it: the Agent's prompt ending with its Skills manifest, then the message. */
  const withSkills = (
    message: string,
    skills: readonly PromptSkill[] = [expenses, notes],
    extra: Partial<ChatRequest> = {},
  ): ChatRequest => ({
    messages: [
      { role: 'system', content: `You are the office assistant.\n\n${formatSkillsManifest(skills)}` },
      { role: 'user', content: message },
    ],
    tools: skillTools,
    ...extra,
  });
  const loaded = {
    name: 'expense-report',
    version: 3,
    instructions: '# Expense reports\n\nCollect every receipt first. Then fill in the form.',
    files: ['policy.md', 'data/rates.csv'],
  };
  /** The request after the model's call, answered by `result`. */
  const answered = (request: ChatRequest, result: ChatResult, content: string): ChatRequest => ({
    ...request,
    messages: [
      ...request.messages,
      result.message,
      { role: 'tool', tool_call_id: functionCall(result).id, content },
    ],
  });

  it('calls load_skill when the message names a Skill, as a word of any case', () => {
    for (const message of ['Use the Expense-Report skill please', 'expense-report: lunch with a client']) {
      const result = offlineChat(withSkills(message));
      expect(result.finishReason).toBe('tool_calls');
      expect(functionCall(result).function).toEqual({
        name: 'load_skill',
        arguments: '{"name":"expense-report"}',
      });
    }
  });

  it('calls load_skill when the message shares two content words with a description, not one', () => {
    const result = offlineChat(withSkills('I have receipts from my trip: make the expense report'));
    expect(JSON.parse(functionCall(result).function.arguments)).toEqual({ name: 'expense-report' });
    expect(offlineChat(withSkills('Here are my receipts')).finishReason).toBe('stop');
  });

  it('answers in text when the message neither names nor describes a Skill', () => {
    for (const message of ['What is the weather in Paris?', 'Tell me about expense-reports', 'Any notes?']) {
      const result = offlineChat(withSkills(message));
      expect(result.finishReason).toBe('stop');
      expect(result.message.content).toContain(`${OFFLINE_REPLY_PREFIX}you said "${message}"`);
    }
  });

  it('picks the best of two: a named Skill over a described one, then the most words shared, then manifest order', () => {
    const named = offlineChat(withSkills('Write release notes for the expense-report work'));
    expect(JSON.parse(functionCall(named).function.arguments)).toEqual({ name: 'expense-report' });
    const described = offlineChat(withSkills('Write the release notes from the merged pull requests'));
    expect(JSON.parse(functionCall(described).function.arguments)).toEqual({ name: 'release-notes' });
    const twin: PromptSkill = { name: 'notes-twin', description: notes.description };
    for (const [skills, name] of [
      [[notes, twin], 'release-notes'],
      [[twin, notes], 'notes-twin'],
    ] as const) {
      const tie = offlineChat(withSkills('release notes from pull requests', skills));
      expect(JSON.parse(functionCall(tie).function.arguments)).toEqual({ name });
    }
  });

  it('needs the load_skill tool and a manifest, and loads once a turn', () => {
    expect(offlineChat(withSkills('Use expense-report', undefined, { tools: [] })).finishReason).toBe('stop');
    expect(offlineChat(withSkills('Use expense-report', [])).finishReason).toBe('stop');
    expect(offlineChat(ask('Use expense-report', { tools: skillTools })).finishReason).toBe('stop');
    const request = withSkills('Use expense-report');
    const call = offlineChat(request);
    const failed = offlineChat(answered(request, call, 'Error: the Skill could not be loaded'));
    expect(failed.finishReason).toBe('stop');
    expect(failed.message.content).toBe(
      `${OFFLINE_REPLY_PREFIX}The tool returned: Error: the Skill could not be loaded`,
    );
  });

  it('after the load_skill result answers following the Skill: its first instruction', () => {
    const request = withSkills('Use expense-report for my lunch');
    const followUp = offlineChat(answered(request, offlineChat(request), formatLoadedSkill(loaded)));
    expect(followUp.finishReason).toBe('stop');
    expect(followUp.message.content).toBe(
      'Offline stand-in answer (no language model was called), following the skill "expense-report" (version 3): ' +
        'Collect every receipt first.',
    );
  });

  it('calls read_skill_file once when the message names a reference file, then quotes its first line', () => {
    const request = withSkills('Use expense-report with the rates table: rates.csv');
    const loading = answered(request, offlineChat(request), formatLoadedSkill(loaded));
    const read = offlineChat(loading);
    expect(read.finishReason).toBe('tool_calls');
    expect(functionCall(read).function).toEqual({
      name: 'read_skill_file',
      arguments: '{"skill":"expense-report","file":"data/rates.csv"}',
    });
    const file = { skill: 'expense-report', path: 'data/rates.csv', content: '\ncountry,rate\nFR,1.2\n' };
    const final = offlineChat(answered(loading, read, formatSkillFile(file)));
    expect(final.finishReason).toBe('stop');
    expect(final.message.content).toBe(
      'Offline stand-in answer (no language model was called), following the skill ' +
        '"expense-report" (version 3): Collect every receipt first. Reference file data/rates.csv: country,rate',
    );
    const missing = offlineChat(answered(loading, read, 'Error: no such file'));
    expect(missing.message.content).toMatch(/\(version 3\): Collect every receipt first\.$/);

    const byBaseName = offlineChat(
      answered(withSkills('expense-report, see the policy'), offlineChat(request), formatLoadedSkill(loaded)),
    );
    expect(JSON.parse(functionCall(byBaseName).function.arguments)).toEqual({
      skill: 'expense-report',
      file: 'policy.md',
    });
    const noFile = offlineChat(
      answered(request, offlineChat(request), formatLoadedSkill({ ...loaded, files: [] })),
    );
    expect(noFile.finishReason).toBe('stop');
    const notOffered = offlineChat({ ...loading, tools: [loadSkillTool] });
    expect(notOffered.finishReason).toBe('stop');
  });

  it('appends the Skill to what the sources or memories answer', () => {
    const request: ChatRequest = {
      messages: [
        { role: 'system', content: formatSkillsManifest([expenses]) },
        { role: 'system', content: formatSourcesBlock([leave]) },
        { role: 'user', content: 'How many days of paid leave with expense-report?' },
      ],
      tools: skillTools,
    };
    const followUp = offlineChat(answered(request, offlineChat(request), formatLoadedSkill(loaded)));
    expect(followUp.message.content).toBe(
      `${OFFLINE_GROUNDED_PREFIX}Employees get 25 days of paid leave each year. [1] ` +
        'Following the skill "expense-report" (version 3): Collect every receipt first.',
    );
    const unanswered = offlineChat(
      answered(
        {
          ...request,
          messages: request.messages.with(1, { role: 'system', content: formatSourcesBlock([]) }),
        },
        offlineChat(request),
        formatLoadedSkill(loaded),
      ),
    );
    expect(unanswered.message.content).toMatch(
      /^Offline stand-in answer \(no language model was called\), following/,
    );
  });

  it('loads a Skill asked for before other tools, searches first when asked, and follows tool_choice', () => {
    const other = offlineChat(
      withSkills('Use expense-report', undefined, { tools: [...skillTools, weatherTool] }),
    );
    expect(functionCall(other).function.name).toBe('load_skill');
    const plain = offlineChat(withSkills('Hello', undefined, { tools: [...skillTools, weatherTool] }));
    expect(functionCall(plain).function.name).toBe('get_weather');
    const search = offlineChat(
      withSkills('search for expense-report rules', undefined, { tools: [...skillTools, searchTool] }),
    );
    expect(functionCall(search).function.name).toBe('search_knowledge');
    const none = offlineChat(withSkills('Use expense-report', undefined, { tool_choice: 'none' }));
    expect(none.finishReason).toBe('stop');
    const required = offlineChat(withSkills('Hello', undefined, { tool_choice: 'required' }));
    expect(functionCall(required).function).toEqual({
      name: 'load_skill',
      arguments: '{"name":"expense-report"}',
    });
    const forcedRead = offlineChat(
      withSkills('the release notes please', undefined, {
        tool_choice: { type: 'function', function: { name: 'read_skill_file' } },
      }),
    );
    expect(JSON.parse(functionCall(forcedRead).function.arguments)).toEqual({
      skill: 'release-notes',
      query: 'the release notes please',
    });
  });
});

describe('Offline chat with code execution', () => {
  const runCodeTool: ChatCompletionTool = {
    type: 'function',
    function: {
      name: 'run_code',
      parameters: {
        type: 'object',
        properties: { language: { type: 'string', enum: ['python', 'shell'] }, code: { type: 'string' } },
        required: ['language', 'code'],
      },
    },
  };
  const CODE_MESSAGE = 'Please run this:\n```python\nprint(sum(range(10)))\n```';
  const run = (message: string, extra: Partial<ChatRequest> = {}): ChatRequest =>
    ask(message, { tools: [runCodeTool], ...extra });
  const result = {
    language: 'python' as const,
    exitCode: 0,
    stdout: '45\n',
    stderr: '',
    truncated: false,
    timedOut: false,
    files: [] as string[],
  };
  /** The request after the model's call, answered by `content`. */
  const answered = (request: ChatRequest, call: ChatResult, content: string): ChatRequest => ({
    ...request,
    messages: [
      ...request.messages,
      call.message,
      { role: 'tool', tool_call_id: functionCall(call).id, content },
    ],
  });

  it('calls run_code with the language and code of the fenced block of the message', () => {
    const first = offlineChat(run(CODE_MESSAGE));
    expect(first.finishReason).toBe('tool_calls');
    expect(functionCall(first).function).toEqual({
      name: 'run_code',
      arguments: JSON.stringify({ language: 'python', code: 'print(sum(range(10)))' }),
    });
    const shell = offlineChat(run('list it\n```\nls -la /work\n```'));
    expect(JSON.parse(functionCall(shell).function.arguments)).toEqual({
      language: 'shell',
      code: 'ls -la /work',
    });
  });

  it('does not call run_code without a fenced block it can run, nor without the tool', () => {
    for (const message of [
      'print(sum(range(10)))',
      'Run ```print(1)``` please',
      '```js\nconsole.log(1)\n```',
    ]) {
      const reply = offlineChat(run(message));
      expect(reply.finishReason).toBe('stop');
      expect(reply.message.content).toContain(OFFLINE_REPLY_PREFIX);
    }
    expect(offlineChat(ask(CODE_MESSAGE, { tools: [timeTool] })).message.tool_calls?.[0]).toMatchObject({
      function: { name: 'get_time' },
    });
    expect(offlineChat(ask(CODE_MESSAGE)).finishReason).toBe('stop');
  });

  it('answers after the result with the exit code, the start of the output and the files, calling nothing else', () => {
    const request = run(CODE_MESSAGE, { tools: [runCodeTool, weatherTool] });
    const first = offlineChat(request);
    const after = offlineChat(answered(request, first, formatCodeResult(result)));
    expect(after.finishReason).toBe('stop');
    expect(after.message.content).toBe(
      'Offline stand-in answer (no language model was called), after running the code: exit 0; output: 45',
    );
    const long = offlineChat(
      answered(
        request,
        first,
        formatCodeResult({
          ...result,
          exitCode: 1,
          stdout: `  ${'x'.repeat(300)}\n`,
          files: ['plot.png', 'out.csv'],
        }),
      ),
    );
    expect(long.message.content).toBe(
      `Offline stand-in answer (no language model was called), after running the code: exit 1; output: ${'x'.repeat(200)} Files: plot.png, out.csv`,
    );
    const silent = offlineChat(answered(request, first, formatCodeResult({ ...result, stdout: '' })));
    expect(silent.message.content).toMatch(/exit 0; output: \(none\)$/);
    const timedOut = offlineChat(
      answered(request, first, formatCodeResult({ ...result, exitCode: null, timedOut: true, stdout: '' })),
    );
    expect(timedOut.message.content).toMatch(/after running the code: timed out; output: \(none\)$/);
  });

  it('runs code once a turn: no second call after a result, even when a later message in the turn follows it', () => {
    const request = run(CODE_MESSAGE);
    const first = offlineChat(request);
    const next = answered(request, first, formatCodeResult(result));
    // The turn continues (say, an assistant note) without a new user message: still no second call.
    const continued = offlineChat({
      ...next,
      messages: [...next.messages, { role: 'assistant', content: 'Ran it.' }],
    });
    expect(continued.finishReason).toBe('stop');
    // The call alone (its result not back yet, e.g. an error text) also counts.
    const failed = offlineChat(answered(request, first, 'sandbox unavailable'));
    expect(failed.finishReason).toBe('stop');
    expect(failed.message.content).toBe(`${OFFLINE_REPLY_PREFIX}The tool returned: sandbox unavailable`);
    // A new user message with a block starts a new turn: it runs again.
    const again = offlineChat({
      ...next,
      messages: [
        ...next.messages,
        { role: 'assistant', content: 'Done.' },
        { role: 'user', content: CODE_MESSAGE },
      ],
    });
    expect(functionCall(again).function.name).toBe('run_code');
  });

  it('leaves the other tools as they were: runs code before them, and offered alone it is not called', () => {
    const tools = [searchTool, runCodeTool, weatherTool];
    expect(functionCall(offlineChat(ask(CODE_MESSAGE, { tools }))).function.name).toBe('run_code');
    expect(functionCall(offlineChat(ask(QUESTION, { tools }))).function.name).toBe('get_weather');
    expect(functionCall(offlineChat(ask('Search for leave rules', { tools }))).function.name).toBe(
      'search_knowledge',
    );
    expect(offlineChat(ask(QUESTION, { tools: [runCodeTool, searchTool] })).finishReason).toBe('stop');
    expect(offlineChat(run(CODE_MESSAGE, { tool_choice: 'none' })).finishReason).toBe('stop');
    expect(
      functionCall(
        offlineChat(
          ask(CODE_MESSAGE, { tools, tool_choice: { type: 'function', function: { name: 'get_weather' } } }),
        ),
      ).function.name,
    ).toBe('get_weather');
    const allowed = offlineChat(
      ask(CODE_MESSAGE, {
        tools,
        tool_choice: {
          type: 'allowed_tools',
          allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'get_weather' } }] },
        },
      }),
    );
    expect(functionCall(allowed).function.name).toBe('get_weather');
    const required = offlineChat(ask(QUESTION, { tools: [runCodeTool], tool_choice: 'required' }));
    expect(functionCall(required).function.name).toBe('run_code');
  });
});
