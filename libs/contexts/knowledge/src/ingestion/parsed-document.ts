// The outcome of parsing: the extracted plain text (what citations point into) and its structure as blocks, each a
// [start, end) range of that text. The builder is the only way blocks are made, so offsets hold by construction:
// `text.slice(block.start, block.end) === block.text` for every block, blocks in order, separated by a blank line.
import { IngestionError } from './ingestion-error.js';

export const BLOCK_TYPES = ['heading', 'paragraph', 'table', 'list', 'code'] as const;
export type BlockType = (typeof BLOCK_TYPES)[number];

export interface Block {
  readonly type: BlockType;
  /** Heading level, 1 (top) to 6. */
  readonly level?: number;
  readonly text: string;
  readonly start: number;
  readonly end: number;
  /** Tables: how many leading lines are the header (repeated when a table is split across chunks). */
  readonly headerRows?: number;
  /** PDF: the 1-based page the block is on. */
  readonly page?: number;
}

export interface ParsedDocument {
  readonly text: string;
  readonly blocks: readonly Block[];
}

export const BLOCK_SEPARATOR = '\n\n';

type BlockDetails = Pick<Block, 'level' | 'headerRows' | 'page'>;

/** Collapses every whitespace run to one space (headings, table cells, list items). */
export const collapseWhitespace = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** Trims each line, drops blank lines: a paragraph keeps its line breaks but never contains a blank line. */
const tidyLines = (text: string, keepIndent = false): string =>
  text
    .split('\n')
    .map((line) => (keepIndent ? line.trimEnd() : line.trim()))
    .filter((line) => line.trim().length > 0)
    .join('\n');

/** Code keeps its indentation: only trailing spaces and the blank lines around it go. */
const tidyCode = (text: string): string =>
  text
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/^\n+|\n+$/g, '');

const tidy = (type: BlockType, text: string): string => {
  const unixText = text.replace(/\r\n?/g, '\n');
  switch (type) {
    case 'heading':
      return collapseWhitespace(unixText);
    case 'code':
      return tidyCode(unixText);
    case 'list':
      // Nested items keep their indentation.
      return tidyLines(unixText, true).trimStart();
    case 'paragraph':
    case 'table':
      return tidyLines(unixText);
  }
};

export class DocumentBuilder {
  private readonly parts: string[] = [];
  private readonly blocks: Block[] = [];
  private length = 0;

  constructor(private readonly maxChars: number) {}

  /** Appends a block (blank ones are dropped); throws `too_large` once the text would pass the character limit. */
  add(type: BlockType, rawText: string, details: BlockDetails = {}): void {
    const text = tidy(type, rawText);
    if (text.length === 0) return;
    const separator = this.blocks.length > 0 ? BLOCK_SEPARATOR : '';
    const start = this.length + separator.length;
    const end = start + text.length;
    if (end > this.maxChars)
      throw new IngestionError('too_large', `the extracted text exceeds ${this.maxChars} characters`);
    this.parts.push(separator, text);
    this.length = end;
    this.blocks.push({ type, text, start, end, ...definedOnly(details) });
  }

  get blockCount(): number {
    return this.blocks.length;
  }

  build(): ParsedDocument {
    return { text: this.parts.join(''), blocks: this.blocks };
  }
}

const definedOnly = (details: BlockDetails): BlockDetails =>
  Object.fromEntries(Object.entries(details).filter(([, value]) => value !== undefined)) as BlockDetails;
