import { countTokens } from '#tokenizer';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS, type Chunk } from './chunk.js';
import { DEFAULT_PARSE_LIMITS } from './parse-limits.js';
import { parseInThisThread } from './parse-core.js';
import { DocumentBuilder, type BlockType, type ParsedDocument } from './parsed-document.js';
import type { DocumentKind } from './sniff.js';

type BlockSpec = readonly [BlockType, string, { level?: number; headerRows?: number }?];

const documentOf = (...blocks: BlockSpec[]): ParsedDocument => {
  const builder = new DocumentBuilder(1e9);
  for (const [type, text, details] of blocks) builder.add(type, text, details);
  return builder.build();
};

const parse = (source: string, kind: DocumentKind = 'markdown'): Promise<ParsedDocument> =>
  parseInThisThread(Buffer.from(source), kind, DEFAULT_PARSE_LIMITS);

const sentence = (index: number): string =>
  `Sentence ${index} explains how the agent platform handles topic ${index % 7} in practice.`;
const prose = (from: number, count: number): string =>
  Array.from({ length: count }, (_, offset) => sentence(from + offset)).join(' ');

/** What every chunking must satisfy: real token counts within the limit, valid ranges, cited text present. */
const expectWellFormed = (parsed: ParsedDocument, chunks: readonly Chunk[], maxTokens: number): void => {
  chunks.forEach((chunk, index) => {
    expect(chunk.index).toBe(index);
    expect(chunk.tokenCount).toBe(countTokens(chunk.text));
    expect(chunk.tokenCount).toBeLessThanOrEqual(maxTokens);
    expect(chunk.start).toBeGreaterThanOrEqual(0);
    expect(chunk.end).toBeLessThanOrEqual(parsed.text.length);
    expect(chunk.start).toBeLessThan(chunk.end);
    expect(chunk.text.endsWith(parsed.text.slice(chunk.start, chunk.end))).toBe(true);
  });
};

const headingStarts = (parsed: ParsedDocument): number[] =>
  parsed.blocks.filter((block) => block.type === 'heading').map((block) => block.start);

describe('chunkDocument', () => {
  it('gives each chunk its heading trail and never lets a chunk cross a heading', async () => {
    const parsed = await parse(
      '# Guide\n\n# Install\n\nRun the installer.\n\n## Linux\n\nUse apt.\n\n### Debian\n\napt install agent\n\n' +
        '## Windows\n\nUse the MSI.\n\n# Usage\n\nStart it.\n',
    );
    const chunks = chunkDocument(parsed);
    expectWellFormed(parsed, chunks, DEFAULT_CHUNK_OPTIONS.maxTokens);
    expect(chunks.map((chunk) => [chunk.sectionPath, chunk.text])).toEqual([
      [['Install'], 'Install\n\nRun the installer.'],
      [['Install', 'Linux'], 'Linux\n\nUse apt.'],
      [['Install', 'Linux', 'Debian'], 'Debian\n\napt install agent'],
      [['Install', 'Windows'], 'Windows\n\nUse the MSI.'],
      [['Usage'], 'Usage\n\nStart it.'],
    ]);
    // 'Guide' has nothing under it before the next heading: no chunk of its own.
    for (const chunk of chunks)
      for (const start of headingStarts(parsed))
        expect(start <= chunk.start || start >= chunk.end).toBe(true);
  });

  it('puts text before the first heading under an empty path', () => {
    const parsed = documentOf(
      ['paragraph', 'Preamble.'],
      ['heading', 'Body', { level: 1 }],
      ['paragraph', 'Text.'],
    );
    expect(chunkDocument(parsed).map((chunk) => chunk.sectionPath)).toEqual([[], ['Body']]);
  });

  it('merges small paragraphs of a section into one chunk, cited exactly', () => {
    const parsed = documentOf(['paragraph', 'First.'], ['paragraph', 'Second.'], ['list', '- a\n- b']);
    const chunks = chunkDocument(parsed);
    expect(parsed.text).toBe('First.\n\nSecond.\n\n- a\n- b');
    expect(chunks).toEqual([
      {
        index: 0,
        text: parsed.text,
        tokenCount: countTokens(parsed.text),
        sectionPath: [],
        start: 0,
        end: 24,
      },
    ]);
  });

  it('starts a new chunk rather than split a paragraph that fits in one', () => {
    const parsed = documentOf(
      ['paragraph', prose(0, 3)],
      ['paragraph', prose(10, 3)],
      ['paragraph', prose(20, 3)],
    );
    const chunks = chunkDocument(parsed, { maxTokens: 120, overlapTokens: 0 });
    expectWellFormed(parsed, chunks, 120);
    const blockEnds = parsed.blocks.map((block) => block.end);
    for (const chunk of chunks) expect(blockEnds).toContain(chunk.end);
    expect(chunks.length).toBeGreaterThan(1);
  });

  it('splits a long paragraph at sentence boundaries, every chunk within maxTokens', () => {
    const parsed = documentOf(['heading', 'Long', { level: 1 }], ['paragraph', prose(0, 40)]);
    const chunks = chunkDocument(parsed, { maxTokens: 80, overlapTokens: 0 });
    expectWellFormed(parsed, chunks, 80);
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) {
      expect(chunk.text).toMatch(/\.$/);
      expect(chunk.text).toMatch(/^(Long\n\n)?Sentence \d+ /);
      expect(chunk.sectionPath).toEqual(['Long']);
    }
    // Without overlap the chunks tile the paragraph: each sentence in exactly one chunk.
    const cited = chunks.map((chunk) => chunk.text).join(' ');
    for (let index = 0; index < 40; index++) expect(cited.split(sentence(index)).length - 1).toBe(1);
  });

  it('overlaps consecutive chunks of a section by whole sentences, within overlapTokens', () => {
    const parsed = documentOf(['paragraph', prose(0, 40)]);
    const chunks = chunkDocument(parsed, { maxTokens: 100, overlapTokens: 40 });
    expectWellFormed(parsed, chunks, 100);
    for (let index = 1; index < chunks.length; index++) {
      const [previous, chunk] = [chunks[index - 1]!, chunks[index]!];
      expect(chunk.start).toBeLessThan(previous.end);
      const overlap = parsed.text.slice(chunk.start, previous.end);
      expect(countTokens(overlap)).toBeLessThanOrEqual(40);
      expect(overlap).toMatch(/^Sentence \d+ .*\.$/); // starts and ends on sentence boundaries
      expect(overlap.length).toBeLessThan(previous.end - previous.start);
    }
  });

  it('does not overlap across a heading', () => {
    const parsed = documentOf(
      ['heading', 'A', { level: 1 }],
      ['paragraph', prose(0, 12)],
      ['heading', 'B', { level: 1 }],
      ['paragraph', prose(20, 2)],
    );
    const chunks = chunkDocument(parsed, { maxTokens: 100, overlapTokens: 40 });
    const firstOfB = chunks.find((chunk) => chunk.sectionPath[0] === 'B')!;
    expect(firstOfB.text.startsWith('B\n\n')).toBe(true);
  });

  it('keeps a table whole in one chunk when it fits, even if that means a new chunk', () => {
    const table = ['Plan | Price', 'Free | 0', 'Team | 10', 'Business | 50', 'Enterprise | on request'].join(
      '\n',
    );
    const parsed = documentOf(
      ['paragraph', prose(0, 3)],
      ['table', table, { headerRows: 1 }],
      ['paragraph', 'After.'],
    );
    const maxTokens = countTokens(table) + 12;
    const chunks = chunkDocument(parsed, { maxTokens, overlapTokens: 20 });
    expectWellFormed(parsed, chunks, maxTokens);
    expect(chunks.filter((chunk) => chunk.text.includes(table))).toHaveLength(1);
    expect(chunks.filter((chunk) => chunk.text.includes('Free | 0'))).toHaveLength(1);
  });

  it('splits a table too large for a chunk by whole rows, repeating the header rows at the top of each chunk', () => {
    const header = 'Region | Quarter | Revenue';
    const rows = Array.from(
      { length: 60 },
      (_, index) => `Region ${index} | Q${(index % 4) + 1} | ${1000 + index * 37}`,
    );
    const parsed = documentOf(
      ['heading', 'Figures', { level: 2 }],
      ['table', [header, ...rows].join('\n'), { headerRows: 1 }],
    );
    const chunks = chunkDocument(parsed, { maxTokens: 90, overlapTokens: 30 });
    expectWellFormed(parsed, chunks, 90);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks[0]!.text.startsWith(`Figures\n\n${header}\n`)).toBe(true);
    expect(chunks[0]!.text).toBe(parsed.text.slice(chunks[0]!.start, chunks[0]!.end));
    for (const chunk of chunks.slice(1)) {
      expect(chunk.text).toBe(`${header}\n${parsed.text.slice(chunk.start, chunk.end)}`);
      expect(chunk.sectionPath).toEqual(['Figures']);
    }
    // Every row exactly once, never cut: no overlap between table chunks.
    const cited = chunks.flatMap((chunk) => chunk.text.split('\n')).filter((line) => /^Region \d/.test(line));
    expect(cited).toEqual(rows);
  });

  it('splits a CSV table (self-describing rows, no header) by whole rows', async () => {
    const csv = [
      'name,team,city',
      ...Array.from({ length: 50 }, (_, index) => `Person ${index},Team ${index % 5},City ${index}`),
    ];
    const parsed = await parse(csv.join('\n'), 'csv');
    const chunks = chunkDocument(parsed, { maxTokens: 60 });
    expectWellFormed(parsed, chunks, 60);
    const lines = chunks.flatMap((chunk) => chunk.text.split('\n'));
    expect(lines).toEqual(parsed.text.split('\n'));
    for (const chunk of chunks) expect(chunk.text).toBe(parsed.text.slice(chunk.start, chunk.end));
  });

  it('splits long lists and code at line breaks', () => {
    const list = Array.from({ length: 40 }, (_, index) => `- item ${index}: ${sentence(index)}`).join('\n');
    const parsed = documentOf(['list', list]);
    const chunks = chunkDocument(parsed, { maxTokens: 70, overlapTokens: 0 });
    expectWellFormed(parsed, chunks, 70);
    for (const chunk of chunks) expect(chunk.text).toMatch(/^- item \d+: [^\n]*\.(\n- item \d+: [^\n]*\.)*$/);
    const code = Array.from(
      { length: 60 },
      (_, index) => `  call(step${index}); // ${index % 3 ? 'go' : 'wait'}`,
    ).join('\n');
    const program = documentOf(['code', `function main() {\n${code}\n}`]);
    const codeChunks = chunkDocument(program, { maxTokens: 70, overlapTokens: 0 });
    expectWellFormed(program, codeChunks, 70);
    expect(codeChunks.length).toBeGreaterThan(2);
    for (const chunk of codeChunks) {
      const text = program.text;
      expect(chunk.end === text.length || text[chunk.end] === '\n').toBe(true);
      expect(text.slice(text.lastIndexOf('\n', chunk.start - 1) + 1, chunk.start).trim()).toBe('');
    }
    const lineCount = codeChunks.reduce((sum, chunk) => sum + chunk.text.split('\n').length, 0);
    expect(lineCount).toBe(program.text.split('\n').length);
  });

  it('cuts a single sentence longer than maxTokens at word boundaries, covering all of it', () => {
    const words = Array.from({ length: 300 }, (_, index) => `word${index}`).join(' ');
    const parsed = documentOf(['paragraph', words]);
    const chunks = chunkDocument(parsed, { maxTokens: 50, overlapTokens: 10 });
    expectWellFormed(parsed, chunks, 50);
    expect(chunks.map((chunk) => chunk.text).join(' ')).toBe(words);
  });

  it('cuts even text without any spaces (a base64 blob) within maxTokens', () => {
    const blob = Buffer.from(Array.from({ length: 3000 }, (_, index) => (index * 7919) % 256)).toString(
      'base64',
    );
    const parsed = documentOf(['paragraph', blob]);
    const chunks = chunkDocument(parsed, { maxTokens: 64, overlapTokens: 0 });
    expectWellFormed(parsed, chunks, 64);
    expect(chunks.map((chunk) => chunk.text).join('')).toBe(blob);
  });

  it('is deterministic: the same document always gives the same chunks', async () => {
    const source = `# Report\n\n${prose(0, 30)}\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## Details\n\n${prose(50, 25)}\n`;
    const first = chunkDocument(await parse(source), { maxTokens: 90, overlapTokens: 25 });
    const second = chunkDocument(await parse(source), { maxTokens: 90, overlapTokens: 25 });
    expect(second).toEqual(first);
    expect(first.length).toBeGreaterThan(3);
  });

  it('chunks a parsed DOCX with the defaults: section paths from its headings, the table in one piece', async () => {
    const { readFileSync } = await import('node:fs');
    const parsed = await parseInThisThread(
      readFileSync(new URL('./fixtures/sample.docx', import.meta.url)),
      'docx',
      DEFAULT_PARSE_LIMITS,
    );
    const chunks = chunkDocument(parsed);
    expectWellFormed(parsed, chunks, 400);
    expect(chunks.map((chunk) => chunk.sectionPath)).toEqual([['Install'], ['Install', 'Linux']]);
    expect(chunks[1]!.text).toContain(
      'Distribution | Command\nDebian | apt install agent\nFedora | dnf install agent',
    );
  });

  it('scales the default overlap down for small chunks', () => {
    const parsed = documentOf(['paragraph', prose(0, 20)]);
    const chunks = chunkDocument(parsed, { maxTokens: 60 });
    expectWellFormed(parsed, chunks, 60);
    const overlaps = chunks
      .slice(1)
      .map((chunk, index) => countTokens(parsed.text.slice(chunk.start, chunks[index]!.end)));
    for (const overlap of overlaps) expect(overlap).toBeLessThanOrEqual(9);
  });

  it('rejects options it cannot honour', () => {
    const parsed = documentOf(['paragraph', 'x']);
    expect(() => chunkDocument(parsed, { maxTokens: 4 })).toThrow(RangeError);
    expect(() => chunkDocument(parsed, { maxTokens: 100, overlapTokens: 100 })).toThrow(RangeError);
    expect(() => chunkDocument(parsed, { maxTokens: 100.5 })).toThrow(RangeError);
  });

  it('returns no chunks for a document without content blocks', () => {
    expect(chunkDocument(documentOf(['heading', 'Only a title', { level: 1 }]))).toEqual([]);
  });
});
