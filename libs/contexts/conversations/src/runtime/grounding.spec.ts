import {
  citationMarkers,
  dropUnknownMarkers,
  formatSourcesBlock,
  formatToolSources,
  isSourcesText,
  NO_SOURCES,
  parseSources,
  SOURCES_HEADER,
  SOURCES_INSTRUCTION,
  TOOL_SOURCES_HEADER,
  type PromptSource,
} from './grounding.js';

const handbook: PromptSource = {
  index: 1,
  documentName: 'Staff handbook',
  sectionPath: ['Leave', 'Annual leave'],
  text: 'Employees get 25 days of paid leave.\nUnused days expire in March.',
};
const faq: PromptSource = { index: 2, documentName: 'FAQ.md', sectionPath: [], text: 'Ask HR first.' };

describe('formatSourcesBlock', () => {
  it('writes the header, the instruction and one block per source', () => {
    expect(formatSourcesBlock([handbook, faq])).toBe(
      [
        SOURCES_HEADER,
        'Answer from these sources and cite each claim with its number in square brackets, like [1]. ' +
          'If they do not contain the answer, say so.',
        '',
        '[1] Staff handbook › Leave › Annual leave',
        'Employees get 25 days of paid leave.',
        'Unused days expire in March.',
        '',
        '[2] FAQ.md',
        'Ask HR first.',
      ].join('\n'),
    );
    expect(SOURCES_HEADER).toBe('Sources retrieved for this turn:');
    expect(formatSourcesBlock([faq]).split('\n')[1]).toBe(SOURCES_INSTRUCTION);
  });

  it('says so when there are no sources', () => {
    expect(formatSourcesBlock([])).toBe(`${SOURCES_HEADER}\n${NO_SOURCES}`);
    expect(NO_SOURCES).toBe('(no sources were found)');
    expect(parseSources(formatSourcesBlock([]))).toEqual([]);
    expect(isSourcesText(formatSourcesBlock([]))).toBe(true);
  });
});

describe('formatToolSources', () => {
  it('writes the same blocks under the tool header, numbered as given', () => {
    const found = [{ ...faq, index: 3 }];
    expect(formatToolSources(found)).toBe(`${TOOL_SOURCES_HEADER}\n\n[3] FAQ.md\nAsk HR first.`);
    expect(TOOL_SOURCES_HEADER).toBe('Sources found by search_knowledge:');
    expect(parseSources(formatToolSources(found))).toEqual(found);
    expect(formatToolSources([])).toBe(`${TOOL_SOURCES_HEADER}\n${NO_SOURCES}`);
    expect(parseSources(formatToolSources([]))).toEqual([]);
  });
});

describe('parseSources', () => {
  it('reads back what was formatted', () => {
    expect(parseSources(formatSourcesBlock([handbook, faq]))).toEqual([handbook, faq]);
    const empty = { index: 4, documentName: 'Blank', sectionPath: ['Only heading'], text: '' };
    expect(parseSources(formatSourcesBlock([empty, faq]))).toEqual([empty, faq]);
  });

  it('keeps a passage whole when it cites [n] itself, even at a line start or after a blank line', () => {
    const quoting: PromptSource = {
      index: 1,
      documentName: 'Paper',
      sectionPath: ['References'],
      text: 'As shown in [2], leave accrues monthly.\n[2] Smith, Leave law, 2020.\n\n[3] Jones, 2021.',
    };
    const formatted = formatSourcesBlock([quoting, faq]);
    expect(parseSources(formatted)).toEqual([
      {
        ...quoting,
        text: 'As shown in [2], leave accrues monthly.\n[2] Smith, Leave law, 2020.\n[3] Jones, 2021.',
      },
      faq,
    ]);
  });

  it('writes names and headings on one line, the path separator folded', () => {
    const odd = { index: 1, documentName: 'A › B\nnotes', sectionPath: [' Part  1 '], text: 'x' };
    expect(parseSources(formatSourcesBlock([odd]))).toEqual([
      { index: 1, documentName: 'A > B notes', sectionPath: ['Part 1'], text: 'x' },
    ]);
  });

  it('finds nothing in text without a header, and reads a header after other text', () => {
    expect(parseSources('[1] Staff handbook\nsome text')).toEqual([]);
    expect(isSourcesText('[1] Staff handbook')).toBe(false);
    expect(parseSources(`Context follows.\n${formatToolSources([faq])}\r\n`)).toEqual([faq]);
    expect(isSourcesText(`  ${formatToolSources([faq])}`)).toBe(true);
  });
});

describe('citationMarkers', () => {
  it('lists distinct numbers in order of first appearance, in every marker form', () => {
    expect(citationMarkers('Leave is 25 days [2]. It expires [1][2], see [3, 1] and [4,5].')).toEqual([
      2, 1, 3, 4, 5,
    ]);
    expect(citationMarkers('No citations here, [a] or [ 1 ] or [].')).toEqual([]);
  });
});

describe('dropUnknownMarkers', () => {
  const known = new Set([1, 2]);

  it('keeps known markers verbatim and removes unknown ones with the space before them', () => {
    expect(dropUnknownMarkers('Leave is 25 days [1]. It expires [7].', known)).toBe(
      'Leave is 25 days [1]. It expires.',
    );
    expect(dropUnknownMarkers('Claim [9] and more [2]', known)).toBe('Claim and more [2]');
    expect(dropUnknownMarkers('Nothing to drop [1][2], [1,2].', known)).toBe(
      'Nothing to drop [1][2], [1,2].',
    );
  });

  it('handles adjacent and grouped markers', () => {
    expect(dropUnknownMarkers('A [9][1].', known)).toBe('A [1].');
    expect(dropUnknownMarkers('A [1][9].', known)).toBe('A [1].');
    expect(dropUnknownMarkers('A [9][8].', known)).toBe('A.');
    expect(dropUnknownMarkers('A [1] [9].', known)).toBe('A [1].');
    expect(dropUnknownMarkers('A [9, 2, 8].', known)).toBe('A [2].');
    expect(dropUnknownMarkers('A [8,9].', known)).toBe('A.');
  });

  it('leaves no space leading a line where a marker was removed', () => {
    expect(dropUnknownMarkers('[9] First line\n[8] second [1]', known)).toBe('First line\nsecond [1]');
  });
});
