import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { computeChatCompletionTokenCount } from 'gpt-tokenizer/functionCalling';
import o200k from 'gpt-tokenizer/encoding/o200k_base';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import {
  countMessageTokens,
  countTokens,
  encodeTokens,
  MAX_RUN_CHARS,
  NON_TEXT_PART_TOKENS,
  SEGMENT_CHARS,
  segments,
  truncateToTokens,
} from './tokenizer.js';

const reference = (text: string) => (text ? o200k.countTokens(text) : 0);

const SAMPLES = [
  'Hello, world!',
  'The quick brown fox jumps over the lazy dog.',
  'Größenwahn und Übermut — ça va? 日本語のテキストも数えます。🦊🚀',
  'function add(a: number, b: number): number {\n  return a + b;\n}',
  '   leading and trailing spaces   \n\n\t',
];

const tools: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: {
        type: 'object',
        properties: {
          city: { type: 'string', description: 'City name' },
          unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
          days: { type: 'integer' },
          hourly: { type: 'boolean' },
          tags: { type: 'array', items: { type: 'string' } },
          where: { type: 'object', properties: { lat: { type: 'number' } }, required: ['lat'] },
        },
        required: ['city'],
      },
    },
  },
  { type: 'function', function: { name: 'now', description: 'The time' } },
];

describe('Offline tokenizer', () => {
  it('counts tokens exactly as gpt-tokenizer o200k_base does', () => {
    for (const text of SAMPLES) expect(countTokens(text)).toBe(o200k.encode(text).length);
    expect(countTokens('')).toBe(0);
  });

  it('counts text that looks like a special token as plain text instead of throwing', () => {
    expect(countTokens('see <|endoftext|> here')).toBeGreaterThan(3);
  });

  it('counts chat messages with the per-message overheads gpt-tokenizer uses', () => {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', name: 'alice', content: 'What is the weather in Paris?' },
      { role: 'assistant', content: 'Let me check.' },
    ];
    const plain = {
      messages: messages.map((m) => ({
        role: m.role,
        content: String(m.content),
        ...('name' in m ? { name: m.name } : {}),
      })),
    };
    expect(countMessageTokens(messages)).toBe(computeChatCompletionTokenCount(plain, reference));
    expect(countMessageTokens(messages, tools)).toBe(
      computeChatCompletionTokenCount(
        {
          ...plain,
          functions: [
            {
              name: 'get_weather',
              description: 'Current weather for a city',
              parameters: {
                type: 'object',
                properties: {
                  city: { type: 'string', description: 'City name' },
                  unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
                  days: { type: 'integer' },
                  hourly: { type: 'boolean' },
                  tags: { type: 'array', items: { type: 'string' } },
                  where: { type: 'object', properties: { lat: { type: 'number' } }, required: ['lat'] },
                },
                required: ['city'],
              },
            },
            { name: 'now', description: 'The time' },
          ],
        },
        reference,
      ),
    );
  });

  it('counts tool choice, tool calls and tool results like function calls and messages', () => {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"temperature":21}' },
    ];
    const legacy = {
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: '',
          function_call: { name: 'get_weather', arguments: '{"city":"Paris"}' },
        },
        { role: 'tool', content: '{"temperature":21}' },
      ],
    };
    expect(countMessageTokens(messages)).toBe(computeChatCompletionTokenCount(legacy, reference));
    expect(countMessageTokens(messages, null, 'none')).toBe(countMessageTokens(messages) + 1);
    expect(countMessageTokens(messages, null, { type: 'function', function: { name: 'get_weather' } })).toBe(
      computeChatCompletionTokenCount({ ...legacy, function_call: { name: 'get_weather' } }, reference),
    );
  });

  it('counts text parts and a flat estimate for other parts', () => {
    const asText = countMessageTokens([{ role: 'user', content: 'Describe this' }]);
    expect(
      countMessageTokens([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe this' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
        },
      ]),
    ).toBe(asText + NON_TEXT_PART_TOKENS);
  });

  it('truncates to a prefix of at most the given number of tokens', () => {
    for (const text of SAMPLES)
      for (const max of [0, 1, 2, 3, 5, 8]) {
        const prefix = truncateToTokens(text, max);
        expect(text.startsWith(prefix)).toBe(true);
        expect(countTokens(prefix)).toBeLessThanOrEqual(max);
      }
    expect(truncateToTokens('short', 100)).toBe('short');
    expect(countTokens(truncateToTokens(SAMPLES[1]!, 4))).toBe(4);
  });

  describe('long inputs (the encoder is far worse than linear on one long piece)', () => {
    const prose = Array.from({ length: 3000 }, (_, i) => SAMPLES[i % SAMPLES.length]).join(' ');
    const pathological = [
      'x'.repeat(20_000),
      '漢字仮名交じり文東京都渋谷区'.repeat(1200),
      ' '.repeat(20_000),
      '🦊'.repeat(5000),
      Buffer.from(Array.from({ length: 15_000 }, (_, i) => (i * 7919) % 256)).toString('base64'),
    ];
    // Cutting a run inside symbols breaks merges the encoder would have made: the worst case measured (+6%).
    const symbolSoup = Array.from({ length: 20_000 }, (_, i) => String.fromCharCode(33 + (i % 90))).join('');

    it('hands the encoder only bounded pieces, whose concatenation is the text', () => {
      for (const text of [prose, symbolSoup, ...pathological]) {
        const pieces = [...segments(text)];
        expect(pieces.join('')).toBe(text);
        for (const piece of pieces) {
          // At most SEGMENT_CHARS before the cut, then at most one more run.
          expect(piece.length).toBeLessThanOrEqual(SEGMENT_CHARS + MAX_RUN_CHARS + 1);
          expect(/\S{130}|\s{130}/u.test(piece)).toBe(false);
        }
      }
    });

    it('counts ordinary text exactly, long runs within 3%, symbol soup within 10%', () => {
      const exactSoup = reference(symbolSoup);
      expect(Math.abs(countTokens(symbolSoup) - exactSoup) / exactSoup).toBeLessThanOrEqual(0.1);
      expect(countTokens(prose)).toBe(reference(prose));
      expect(encodeTokens(prose)).toEqual(o200k.encode(prose));
      for (const text of pathological) {
        const exact = reference(text);
        expect(Math.abs(countTokens(text) - exact) / exact).toBeLessThanOrEqual(0.03);
      }
    });

    it('counts and truncates 400,000 characters without whitespace', () => {
      const run = 'x'.repeat(400_000);
      expect(countTokens(run)).toBeGreaterThan(40_000);
      const prefix = truncateToTokens(run, 1000);
      expect(run.startsWith(prefix)).toBe(true);
      expect(countTokens(prefix)).toBeLessThanOrEqual(1000);
      expect(countTokens(prefix)).toBeGreaterThan(990);
    });
  });

  it('loads the encoding on first use, not on import', () => {
    // Node strips the types of tokenizer.ts itself (it has no relative imports), in a fresh process.
    const module = fileURLToPath(new URL('./tokenizer.ts', import.meta.url));
    const script = `
      import { createRequire } from 'node:module';
      const cache = createRequire(process.cwd() + '/').cache;
      const loaded = () => Object.keys(cache).some((file) => file.includes('bpeRanks'));
      const { countTokens } = await import(${JSON.stringify(module)});
      const before = loaded();
      const count = countTokens('hello world');
      console.log(JSON.stringify({ before, after: loaded(), count }));`;
    const output = execFileSync(process.execPath, ['--no-warnings', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(JSON.parse(output)).toEqual({ before: false, after: true, count: 2 });
  });
});
