// Parsing from the TypeScript sources, so in the calling thread (see parse.ts); the worker thread, its time limit
// and its heap cap are covered against the compiled build in parse.int.spec.ts.
import { readFileSync } from 'node:fs';
import { IngestionError, type IngestionFailureReason } from './ingestion-error.js';
import { DEFAULT_PARSE_LIMITS, type ParseLimits } from './parse-limits.js';
import { parseDocument, PARSES_IN_CHILD_PROCESS } from './parse.js';
import type { Block, ParsedDocument } from './parsed-document.js';
import type { DocumentKind } from './sniff.js';

const fixture = (name: string): Buffer => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));

/** The offsets contract: each block is exactly its range of the text, in order, separated by a blank line. */
const expectConsistent = ({ text, blocks }: ParsedDocument): void => {
  expect(blocks.length).toBeGreaterThan(0);
  blocks.forEach((block, index) => {
    expect(text.slice(block.start, block.end)).toBe(block.text);
    expect(block.text).toBe(block.text.trim());
    const previous = blocks[index - 1];
    expect(block.start).toBe(previous ? previous.end + 2 : 0);
  });
  expect(text.length).toBe(blocks[blocks.length - 1]!.end);
};

const parsed = async (name: string, kind: DocumentKind): Promise<ParsedDocument> => {
  const document = await parseDocument(fixture(name), kind);
  expectConsistent(document);
  return document;
};

const shape = (blocks: readonly Block[]) =>
  blocks.map(({ type, text, level, headerRows, page }) => ({ type, text, level, headerRows, page }));

const failure = async (
  bytes: Uint8Array,
  kind: DocumentKind,
  limits: Partial<ParseLimits> = {},
): Promise<{ reason: IngestionFailureReason; message: string }> => {
  const error: unknown = await parseDocument(bytes, kind, limits).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(IngestionError);
  const { reason, message } = error as IngestionError;
  return { reason, message };
};

describe('parseDocument', () => {
  it('runs in the calling thread when running from the TypeScript sources', () => {
    expect(PARSES_IN_CHILD_PROCESS).toBe(false);
  });

  it('Markdown: headings with levels, paragraphs without markup, nested lists, tables with a header, code; no scripts', async () => {
    const { blocks } = await parsed('sample.md', 'markdown');
    expect(shape(blocks)).toEqual([
      { type: 'heading', level: 1, text: 'Install' },
      {
        type: 'paragraph',
        text: 'Download the installer from the releases page and run it. It asks for an API key.',
      },
      { type: 'heading', level: 2, text: 'Linux' },
      { type: 'paragraph', text: 'Use the package manager of your distribution:' },
      {
        type: 'list',
        text: '- Debian: apt install agent\n- Fedora: dnf install agent\n  - or build from source',
      },
      {
        type: 'table',
        headerRows: 1,
        text: 'Distribution | Command\nDebian | apt install agent\nFedora | dnf install agent',
      },
      { type: 'code', text: 'agent --version' },
      { type: 'heading', level: 1, text: 'Usage' },
      { type: 'paragraph', text: 'Run agent start & open the dashboard.' },
    ]);
  });

  it('HTML: drops head, scripts, styles, navigation and noscript; keeps headings, tables, lists and loose text', async () => {
    const { text, blocks } = await parsed('sample.html', 'html');
    expect(text).not.toMatch(/tracking|color|Agent handbook|Home|JavaScript/);
    expect(shape(blocks)).toEqual([
      { type: 'heading', level: 1, text: 'Handbook' },
      { type: 'paragraph', text: 'Agents answer questions from the knowledge base.' },
      { type: 'heading', level: 2, text: 'Limits' },
      { type: 'table', headerRows: 1, text: 'Plan | Documents\nFree | 100\nTeam | 10 000' },
      { type: 'list', text: '- One list item\n- Another with bold text' },
      { type: 'paragraph', text: 'Loose text in a div\nover two lines' },
    ]);
  });

  it('HTML: repairs broken markup as a browser would, and survives hostile nesting depth', async () => {
    const broken = await parseDocument(Buffer.from('<p>one<p>two<table><tr><td>a<td>b</table><h2>T'), 'html');
    expect(shape(broken.blocks)).toEqual([
      { type: 'paragraph', text: 'one' },
      { type: 'paragraph', text: 'two' },
      { type: 'table', text: 'a | b' },
      { type: 'heading', level: 2, text: 'T' },
    ]);
    const deep = await parseDocument(Buffer.from(`${'<div>'.repeat(100_000)}deep inside`), 'html');
    expect(deep.text).toBe('deep inside');
  });

  it('PDF: one paragraph per block of lines, on its page', async () => {
    const { blocks } = await parsed('sample.pdf', 'pdf');
    expect(shape(blocks)).toEqual([
      { type: 'paragraph', page: 1, text: 'Quarterly report' },
      {
        type: 'paragraph',
        page: 1,
        text: 'Revenue grew in every region this quarter.\nThe largest gain came from the north.',
      },
      { type: 'paragraph', page: 1, text: 'Costs stayed flat.' },
      {
        type: 'paragraph',
        page: 2,
        text: 'Second page paragraph about hiring.\nIt continues on a second line.',
      },
    ]);
  });

  it('DOCX: headings from the paragraph styles, tables with their header row, text unescaped', async () => {
    const { blocks } = await parsed('sample.docx', 'docx');
    expect(shape(blocks)).toEqual([
      { type: 'heading', level: 1, text: 'Install' },
      { type: 'paragraph', text: 'Download the installer and run it.' },
      { type: 'heading', level: 2, text: 'Linux' },
      { type: 'paragraph', text: 'Use the package manager of your distribution.' },
      {
        type: 'table',
        headerRows: 1,
        text: 'Distribution | Command\nDebian | apt install agent\nFedora | dnf install agent',
      },
      { type: 'paragraph', text: 'Done & dusted.' },
    ]);
  });

  it('CSV: one table, each row a line of `column: value` named by the header, empty cells left out', async () => {
    const { blocks } = await parsed('sample.csv', 'csv');
    expect(shape(blocks)).toEqual([
      {
        type: 'table',
        text:
          'name: Ada Lovelace; role: engineer; joined: 1843\n' +
          'name: Grace Hopper; role: admiral, engineer; joined: 1944\n' +
          'name: Alan Turing; joined: 1936',
      },
    ]);
    const semicolons = await parseDocument(Buffer.from('\ufeffcity;country\nLyon;France\n'), 'csv');
    expect(semicolons.text).toBe('city: Lyon; country: France');
  });

  it('JSON: one `path: value` line per leaf, a block per top-level entry, in document order', async () => {
    const { blocks } = await parsed('sample.json', 'json');
    expect(shape(blocks)).toEqual([
      { type: 'list', text: 'service.name: agent\nservice.port: 8080\nservice.tls: true' },
      { type: 'list', text: 'regions[0]: eu-west\nregions[1]: us-east' },
      { type: 'list', text: 'owner: null' },
      { type: 'list', text: '["display name"]: Agent Platform' },
      { type: 'list', text: 'empty: {}' },
    ]);
    const deep = await parseDocument(
      Buffer.from(`${'['.repeat(100_000)}"core"${']'.repeat(100_000)}`),
      'json',
    );
    expect(deep.text === `${'[0]'.repeat(100_000)}: core`).toBe(true);
  });

  it('plain text: paragraphs split at blank lines, line breaks inside kept', async () => {
    const { blocks } = await parsed('sample.txt', 'text');
    expect(shape(blocks)).toEqual([
      { type: 'paragraph', text: 'Meeting notes, 3 March' },
      {
        type: 'paragraph',
        text: 'The team agreed to ship the ingestion pipeline first.\nSearch comes after it.',
      },
      { type: 'paragraph', text: 'Open questions: pricing, and the retention period.' },
    ]);
    const windows = await parseDocument(Buffer.from('one\r\n\r\n\r\ntwo\r\nlines'), 'text');
    expect(windows.text).toBe('one\n\ntwo\nlines');
  });

  it('fails a corrupt PDF or DOCX as parse_failed, with the reason in the message', async () => {
    expect(await failure(fixture('corrupt.pdf'), 'pdf')).toEqual({
      reason: 'parse_failed',
      message: expect.stringMatching(/invalid pdf/i),
    });
    expect(await failure(fixture('corrupt.docx'), 'docx')).toEqual({
      reason: 'parse_failed',
      message: expect.stringMatching(/zip/i),
    });
    expect((await failure(fixture('sample.txt'), 'pdf')).reason).toBe('parse_failed');
    expect((await failure(fixture('sample.pdf'), 'docx')).reason).toBe('parse_failed');
  });

  it('reads text that is not UTF-8 as Windows-1252, and fails JSON that does not parse as parse_failed', async () => {
    expect((await parseDocument(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80]), 'text')).text).toBe(
      'café €',
    );
    expect((await failure(Buffer.from('{"a": '), 'json')).reason).toBe('parse_failed');
  });

  it('fails a document over the byte, character or page limits as too_large', async () => {
    expect(await failure(fixture('sample.md'), 'markdown', { maxBytes: 100 })).toEqual({
      reason: 'too_large',
      message: expect.stringContaining('over the limit of 100'),
    });
    expect(await failure(fixture('sample.md'), 'markdown', { maxChars: 100 })).toEqual({
      reason: 'too_large',
      message: 'the extracted text exceeds 100 characters',
    });
    expect((await failure(fixture('sample.csv'), 'csv', { maxChars: 60 })).reason).toBe('too_large');
    expect((await failure(fixture('sample.json'), 'json', { maxChars: 20 })).reason).toBe('too_large');
    expect(await failure(fixture('sample.pdf'), 'pdf', { maxPdfPages: 1 })).toEqual({
      reason: 'too_large',
      message: 'the PDF has 2 pages, over the limit of 1',
    });
  });

  it('fails a document with no text as empty', async () => {
    expect(await failure(Buffer.alloc(0), 'text')).toEqual({
      reason: 'empty',
      message: 'the document is empty',
    });
    expect((await failure(Buffer.from(' \n\n\t \n'), 'text')).reason).toBe('empty');
    expect((await failure(Buffer.from('<html><script>x()</script></html>'), 'html')).reason).toBe('empty');
    expect((await failure(Buffer.from('{}'), 'json')).reason).toBe('empty');
    expect((await failure(Buffer.from('[]'), 'json')).reason).toBe('empty');
    const blankPdf =
      '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n' +
      '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n' +
      '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >> endobj\n' +
      'trailer << /Root 1 0 R >>\n%%EOF\n';
    expect((await failure(Buffer.from(blankPdf), 'pdf')).reason).toBe('empty');
  });

  it('notices a parse that overran the time limit even in the calling thread', async () => {
    expect(await failure(fixture('sample.pdf'), 'pdf', { timeoutMs: 1 })).toEqual({
      reason: 'timeout',
      message: 'parsing took longer than 1 ms',
    });
  });

  it('has defaults for every limit', () => {
    expect(DEFAULT_PARSE_LIMITS).toEqual({
      maxBytes: 25 * 1024 * 1024,
      maxChars: 5_000_000,
      maxPdfPages: 2_000,
      timeoutMs: 30_000,
      maxMemoryMb: 768,
    });
  });
});
