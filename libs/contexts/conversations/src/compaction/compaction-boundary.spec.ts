import {
  attachmentNote,
  historyTokens,
  modelView,
  planCompaction,
  type Checkpoint,
  type CompactionPlan,
  type HistoryAttachment,
  type HistoryMessage,
} from './compaction-boundary.js';

// Whitespace-separated words stand in for tokens, so that expectations can be read off the texts.
const words = (text: string): number => text.split(/\s+/u).filter(Boolean).length;
// Code points, for scripts and symbols written without spaces.
const codePoints = (text: string): number => [...text].length;

const message = (
  id: string,
  text: string,
  attachments: readonly HistoryAttachment[] = [],
  role: 'user' | 'assistant' = 'user',
): HistoryMessage => ({ id, role, text, attachments });

const checkpointFrom = (plan: CompactionPlan, summary: string): Checkpoint => ({
  throughMessageId: plan.throughMessageId,
  throughOffset: plan.throughOffset,
  summary,
});

const graphemeEdges = (text: string): Set<number> =>
  new Set([...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].map((g) => g.index));

describe('compaction boundary', () => {
  describe('attachmentNote', () => {
    it('names the summarised attachments in order', () =>
      expect(attachmentNote(['a.pdf', 'b.txt'])).toBe('[Attachments summarised earlier: a.pdf, b.txt]'));
  });

  describe('given a history within its budget', () => {
    const history = [
      message('m1', 'one two'),
      message('m2', 'three four', [], 'assistant'),
      message('m3', 'five'),
    ];

    it('when counted, then the view is every message and its attachment texts', () => {
      const withAttachment = [...history, message('m4', 'six', [{ name: 'a.txt', text: 'seven eight' }])];
      expect(historyTokens(withAttachment, null, words)).toBe(8);
    });

    it('when planning, then there is nothing to compact', () =>
      expect(planCompaction(history, null, 5, { count: words })).toBeNull());

    it('when viewed, then the model sees every message as it is and no summary', () =>
      expect(modelView(history, null)).toEqual({ summary: null, messages: history }));
  });

  describe('given a history over its budget', () => {
    const history = [
      message('m1', 'one two three four'),
      message('m2', 'five six seven eight', [], 'assistant'),
      message('m3', 'nine ten eleven twelve'),
    ];

    it('when the kept tokens run out exactly at a message edge, then the boundary is the end of the earlier message', () => {
      const plan = planCompaction(history, null, 10, { count: words, keepTokens: 4 });
      expect(plan).toEqual({
        throughMessageId: 'm2',
        throughOffset: 'five six seven eight'.length,
        toSummarise: 'user: one two three four\n\nassistant: five six seven eight',
        tokensBefore: 12,
      });
    });

    it('when a message before the newest cannot be cut at all, then it is summarised whole', () => {
      const unsplittable = [
        message('m1', 'one two'),
        message('m2', 'supercalifragilistic'),
        message('m3', 'a b'),
      ];
      const plan = planCompaction(unsplittable, null, 4, { count: words, keepTokens: 2 });
      expect(plan).toMatchObject({ throughMessageId: 'm2', throughOffset: 'supercalifragilistic'.length });
    });

    it('when the kept tokens run out inside a message, then the boundary falls at a whitespace edge and the tail is kept verbatim', () => {
      const plan = planCompaction(history, null, 10, { count: words, keepTokens: 6 })!;
      expect(plan.throughMessageId).toBe('m2');
      expect(plan.throughOffset).toBe('five six '.length);
      expect(plan.toSummarise).toBe(
        'user: one two three four\n\nassistant (continues verbatim after this): five six',
      );
      const view = modelView(history, checkpointFrom(plan, 'S'));
      expect(view.summary).toBe('S');
      expect(view.messages.map((m) => m.text)).toEqual(['seven eight', 'nine ten eleven twelve']);
      expect(view.messages[0]!.text).toBe(history[1]!.text.slice(plan.throughOffset));
    });

    it('when the budget is halved by default, then about half of it is kept verbatim', () => {
      const plan = planCompaction(history, null, 8, { count: words })!;
      expect(plan).toMatchObject({ throughMessageId: 'm2', throughOffset: 'five six seven eight'.length });
    });

    it('when the edge is a sentence end in a script without spaces, then the tail starts at the next sentence', () => {
      const chinese = [message('m1', '你好世界。今天天气很好。'), message('m2', '我们去公园吧')];
      const plan = planCompaction(chinese, null, 10, { count: codePoints, keepTokens: 13 })!;
      expect(plan).toMatchObject({ throughMessageId: 'm1', throughOffset: '你好世界。'.length });
      expect(modelView(chinese, checkpointFrom(plan, 'S')).messages[0]!.text).toBe('今天天气很好。');
    });

    it('when the edge would fall inside a word, then the boundary moves to the next word so the kept part still fits', () => {
      const plan = planCompaction([message('m1', 'alpha beta gamma'), message('m2', 'x')], null, 2, {
        count: codePoints,
        keepTokens: 9,
      })!;
      // "beta gamma" is 10 code points, "gamma" 5: the cut never lands inside "beta".
      expect(plan).toMatchObject({ throughMessageId: 'm1', throughOffset: 'alpha beta '.length });
    });
  });

  describe('given a newest message larger than the tokens kept', () => {
    const huge = Array.from({ length: 20 }, (_, i) => `w${i + 1}`).join(' ');

    it('when it is the only message, then the boundary falls inside it and its tail is kept', () => {
      const plan = planCompaction([message('m1', huge)], null, 10, { count: words })!;
      expect(plan.throughMessageId).toBe('m1');
      expect(huge.slice(plan.throughOffset)).toBe('w16 w17 w18 w19 w20');
      expect(plan.toSummarise).toBe(
        'user (continues verbatim after this): w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13 w14 w15',
      );
    });

    it('when older messages precede it, then they are summarised whole and the newest is cut', () => {
      const plan = planCompaction([message('m1', 'old words'), message('m2', huge)], null, 10, {
        count: words,
      })!;
      expect(plan.throughMessageId).toBe('m2');
      expect(plan.toSummarise).toMatch(/^user: old words\n\nuser \(continues verbatim after this\): w1 /);
    });

    it('when not even its last word fits, then only its last word is kept rather than the whole message summarised', () => {
      const plan = planCompaction([message('m1', huge)], null, 10, { count: words, keepTokens: 0 })!;
      expect(huge.slice(plan.throughOffset)).toBe('w20');
    });

    it('when it cannot be cut at all, then it is kept whole and what precedes it is summarised', () => {
      const blob = 'x'.repeat(50);
      const plan = planCompaction([message('m1', 'a b c'), message('m2', blob)], null, 10, {
        count: codePoints,
      });
      expect(plan).toMatchObject({ throughMessageId: 'm1', throughOffset: 'a b c'.length });
    });

    it('when it cannot be cut and nothing precedes it, then there is no plan that would shrink the view', () =>
      expect(planCompaction([message('m1', 'x'.repeat(50))], null, 10, { count: codePoints })).toBeNull());
  });

  describe('given attachments', () => {
    const history = [
      message('m1', 'please read', [
        { name: 'a.pdf', text: 'a long contract text' },
        { name: 'scan.png', text: null },
      ]),
      message('m2', 'it says many things', [], 'assistant'),
      message('m3', 'and this one', [{ name: 'b.txt', text: 'bee text' }]),
      message('m4', 'thanks'),
    ];

    it('when their message is before the boundary, then the summariser gets a note instead of their text and the view never shows them', () => {
      const plan = planCompaction(history, null, 10, { count: words, keepTokens: 6 })!;
      expect(plan).toMatchObject({ throughMessageId: 'm2', throughOffset: 'it says many things'.length });
      expect(plan.toSummarise).toBe(
        'user: please read\n[Attachments summarised earlier: a.pdf, scan.png]\n\nassistant: it says many things',
      );
      expect(plan.toSummarise).not.toContain('contract');
      const view = modelView(history, checkpointFrom(plan, 'S'));
      expect(view.messages.map((m) => m.id)).toEqual(['m3', 'm4']);
      expect(JSON.stringify(view)).not.toContain('a.pdf');
    });

    it('when their message straddles the boundary, then the view shows a note naming them before the kept tail', () => {
      const inside: Checkpoint = { throughMessageId: 'm3', throughOffset: 'and '.length, summary: 'S' };
      const view = modelView(history, inside);
      expect(view.messages[0]).toEqual({
        id: 'm3',
        role: 'user',
        text: '[Attachments summarised earlier: b.txt]\n\nthis one',
        attachments: [],
      });
      expect(historyTokens(history, inside, words)).toBe(1 + 4 + 2 + 1);
    });

    it('when the boundary is planned inside their message, then the note counts towards the kept tokens', () => {
      const straddled = [
        message('m1', 'one two three four five', [{ name: 'c.txt', text: 'see more words' }]),
      ];
      const plan = planCompaction(straddled, null, 5, { count: words, keepTokens: 6 })!;
      // The note is 4 words, so only 2 words of the text fit beside it.
      expect(straddled[0]!.text.slice(plan.throughOffset)).toBe('four five');
      expect(plan.toSummarise).toBe(
        'user (continues verbatim after this): one two three\n[Attachments summarised earlier: c.txt]',
      );
    });
  });

  describe('given a first compaction already made', () => {
    const history = [
      message('m1', 'one two three four'),
      message('m2', 'five six seven eight', [], 'assistant'),
      message('m3', 'nine ten'),
    ];
    const first: Checkpoint = { throughMessageId: 'm2', throughOffset: 'five six '.length, summary: 'S1' };

    it('when counted, then the summary replaces the prefix', () =>
      expect(historyTokens(history, first, words)).toBe(1 + 2 + 2));

    it('when the conversation grows past the budget again, then the previous summary and only newer text go to the summariser', () => {
      const grown = [
        ...history,
        message('m4', 'eleven twelve thirteen', [], 'assistant'),
        message('m5', 'fourteen'),
      ];
      const plan = planCompaction(grown, first, 6, { count: words, keepTokens: 3 })!;
      expect(plan).toMatchObject({
        throughMessageId: 'm4',
        throughOffset: 'eleven '.length,
        tokensBefore: 9,
      });
      expect(plan.toSummarise).toBe(
        [
          'Summary of the conversation so far:\nS1',
          'assistant (continued): seven eight',
          'user: nine ten',
          'assistant (continues verbatim after this): eleven',
        ].join('\n\n'),
      );
    });

    it('when the next boundary falls in the same message, then it lies after the previous one', () => {
      const long = [message('m1', 'a b c d e f g h')];
      const earlier: Checkpoint = { throughMessageId: 'm1', throughOffset: 'a b '.length, summary: 'S1' };
      const plan = planCompaction(long, earlier, 5, { count: words, keepTokens: 3 })!;
      expect(plan.throughOffset).toBe('a b c d e '.length);
      expect(plan.toSummarise).toBe(
        'Summary of the conversation so far:\nS1\n\nuser (continued) (continues verbatim after this): c d e',
      );
    });

    it('when only the summary itself is over the budget, then the boundary does not move back to make room', () => {
      const wordy: Checkpoint = { ...first, summary: 'a '.repeat(30) };
      expect(planCompaction(history, wordy, 10, { count: words })).toBeNull();
    });
  });

  describe('given a checkpoint whose message was deleted', () => {
    const history = [message('m1', 'one two'), message('m3', 'three four')];
    const orphan: Checkpoint = { throughMessageId: 'm2', throughOffset: 3, summary: 'gone summary' };

    it('when viewed, then the checkpoint is ignored', () =>
      expect(modelView(history, orphan)).toEqual({ summary: null, messages: history }));

    it('when counted, then its summary is not counted', () =>
      expect(historyTokens(history, orphan, words)).toBe(4));

    it('when planning, then the summariser starts from the first message without the stale summary', () => {
      const plan = planCompaction(history, orphan, 3, { count: words, keepTokens: 2 })!;
      expect(plan).toMatchObject({ throughMessageId: 'm1', throughOffset: 'one two'.length });
      expect(plan.toSummarise).toBe('user: one two');
    });
  });

  describe('given a checkpoint through the end of a message', () => {
    it('when viewed, then that message and its attachments are gone', () => {
      const history = [message('m1', 'one', [{ name: 'a.pdf', text: 'x' }]), message('m2', 'two')];
      const view = modelView(history, { throughMessageId: 'm1', throughOffset: 3, summary: 'S' });
      expect(view).toEqual({ summary: 'S', messages: [history[1]] });
    });

    it('when the message has only attachments, then offset 0 is its end', () => {
      const history = [message('m1', '', [{ name: 'a.pdf', text: 'x' }]), message('m2', 'two')];
      const view = modelView(history, { throughMessageId: 'm1', throughOffset: 0, summary: 'S' });
      expect(view.messages.map((m) => m.id)).toEqual(['m2']);
    });
  });

  describe('given emoji and CJK text', () => {
    const emoji = 'ok 👨‍👩‍👧👍🏽🇫🇷😀 done';
    const cjk = '我们今天去公园散步吧然后回家';

    it.each([
      ['emoji', emoji],
      ['CJK without punctuation', cjk],
    ])(
      'when cut at every possible kept size (%s), then no grapheme, surrogate pair or emoji sequence is split',
      (_, text) => {
        const edges = graphemeEdges(text);
        for (let keep = 0; keep < codePoints(text); keep++) {
          const plan = planCompaction([message('m1', text)], null, 0, {
            count: codePoints,
            keepTokens: keep,
          })!;
          const tail = text.slice(plan.throughOffset);
          expect(edges.has(plan.throughOffset)).toBe(true);
          expect(tail.isWellFormed()).toBe(true);
          expect(tail.length).toBeGreaterThan(0);
          expect(tail.length).toBeLessThan(text.length);
        }
      },
    );

    it('when emoji are cut, then a ZWJ family and a skin-toned emoji stay whole', () => {
      const plan = planCompaction([message('m1', emoji)], null, 0, { count: codePoints, keepTokens: 12 })!;
      expect(emoji.slice(plan.throughOffset)).toBe('👍🏽🇫🇷😀 done');
    });

    it('when CJK is cut, then it is cut between words', () => {
      const plan = planCompaction([message('m1', cjk)], null, 0, { count: codePoints, keepTokens: 3 })!;
      expect(['回家', '然后回家']).toContain(cjk.slice(plan.throughOffset));
    });

    it('when counted with the default tokenizer, then the tail kept fits the tokens kept', () => {
      const text = Array.from({ length: 40 }, (_, i) => `第${i}句话。Sentence ${i} 🎉`).join(' ');
      const plan = planCompaction([message('m1', text)], null, 100, { keepTokens: 30 })!;
      const tail = text.slice(plan.throughOffset);
      expect(tail.isWellFormed()).toBe(true);
      expect(historyTokens([message('m1', text)], checkpointFrom(plan, ''))).toBeLessThanOrEqual(30);
      expect(plan.tokensBefore).toBe(historyTokens([message('m1', text)], null));
    });
  });
});
