// How big an offline task is: the characters of its text, counted without encoding it, and only as far as asked.
import { taskSize, textChars } from './offline-tasks.js';

describe('offline task size', () => {
  it("counts the characters of a chat's messages and tools, however nested, keys aside", () => {
    const size = taskSize({
      op: 'chat',
      request: {
        messages: [
          { role: 'system', content: 'abc' },
          { role: 'user', content: [{ type: 'text', text: 'hello' }] },
        ],
        tools: [{ type: 'function', function: { name: 'f', parameters: {} } }],
      },
    });
    // 'system' + 'abc' + 'user' + 'text' + 'hello' + 'function' + 'f'
    expect(size).toBe(6 + 3 + 4 + 4 + 5 + 8 + 1);
  });

  it('stops counting once past the cap, and counts every input of an embedding or a rerank', () => {
    const long = 'x'.repeat(100_000);
    const capped = taskSize(
      {
        op: 'countMessages',
        messages: [
          { role: 'user', content: long },
          { role: 'user', content: long },
        ],
      },
      16_384,
    );
    expect(capped).toBeGreaterThan(16_384);
    expect(capped).toBeLessThanOrEqual(100_000 + 'user'.length);
    expect(taskSize({ op: 'embed', inputs: ['ab', 'cde'] })).toBe(5);
    expect(taskSize({ op: 'rerank', query: 'q', documents: ['ab', 'cd'] })).toBe(5);
    expect(taskSize({ op: 'countText', text: 'four' })).toBe(4);
  });

  it('walks a long list without spreading it onto the stack', () => {
    expect(textChars(Array.from({ length: 300_000 }, () => 'ab'))).toBe(600_000);
    expect(textChars({ a: null, b: 3, c: ['x', { d: 'yz' }] })).toBe(3);
  });
});
