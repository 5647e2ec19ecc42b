import { countTokens } from '#tokenizer';
import type { HistoryMessage } from '../compaction/compaction-boundary.js';
import { planHistoryCompaction, sectionTokens } from '../compaction/history-work.js';
import { fitsWithoutCounting } from './turn-prompt.js';

const message = (
  id: string,
  text: string,
  attachments: HistoryMessage['attachments'] = [],
): HistoryMessage => ({
  id,
  role: 'user',
  text,
  attachments,
});

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

describe('fitsWithoutCounting', () => {
  const system = 'You are a careful assistant. Answer from the sources and cite them.';
  const sources =
    'Sources:\n[1] Handbook › Leave\nEmployees get 25 days of paid leave. Unused days expire in March.';
  const history = [
    message('m1', 'How many days of leave do I get? 日本語のテキストと絵文字 🎉👩‍👩‍👧 too.'),
    message('m2', 'And the attachment?', [{ name: 'notes.txt', text: 'x'.repeat(300) }]),
  ];
  const exactBytes =
    bytes(system) + 4 + bytes(sources) + 4 + history.reduce((sum, m) => sum + bytes(m.text), 0) + 300;

  it('is true from the budget that holds every byte (sections with their framing, messages, attachments) on', () => {
    expect(fitsWithoutCounting([system, sources], history, null, exactBytes)).toBe(true);
    expect(fitsWithoutCounting([system, sources], history, null, exactBytes + 1000)).toBe(true);
  });

  it('is false one byte short, though the tokens would fit: the exact count then decides', () => {
    expect(fitsWithoutCounting([system, sources], history, null, exactBytes - 1)).toBe(false);
    const tokens =
      sectionTokens([system, sources]) +
      history.reduce((sum, m) => sum + countTokens(m.text) + countTokens(m.attachments[0]?.text ?? ''), 0);
    expect(tokens).toBeLessThan(exactBytes - 1);
  });

  it('is false with a checkpoint: a summarised view is counted', () => {
    const checkpoint = { throughMessageId: 'm1', throughOffset: 5, summary: 'Leave.' };
    expect(fitsWithoutCounting([system], history, checkpoint, 1_000_000)).toBe(false);
  });

  it('answers true only where the counted plan finds no compaction needed', () => {
    const texts = [
      'plain words '.repeat(50),
      'a'.repeat(1000),
      '🎉'.repeat(200),
      '中文文本没有空格'.repeat(40),
      'code: {"key": [1, 2, 3]} <|endoftext|> '.repeat(20),
    ];
    let checked = 0;
    for (const text of texts) {
      const turnHistory = [message('m1', text), message('m2', text.slice(0, 100))];
      for (const budget of [256, 1000, 2000, 5000, 20_000]) {
        if (!fitsWithoutCounting([system, text], turnHistory, null, budget)) continue;
        const left = Math.max(256, budget - sectionTokens([system, text]));
        expect(planHistoryCompaction(turnHistory, null, left)).toBeNull();
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(5);
  });
});
