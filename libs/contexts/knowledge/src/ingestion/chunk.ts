// Chunking a parsed document for retrieval: token-sized chunks that follow its structure, each with the heading
// trail it sits under and the [start, end) range of the extracted text it cites.
//
// - A chunk never spans two sections (a heading starts a new one); a section that is only a heading has no chunk
//   of its own, its title lives on in the section paths below it.
// - Whole blocks (paragraphs, lists, tables, code) are packed together up to `maxTokens`; a block that fits in a
//   chunk is never split. A heading always opens the first chunk of its section.
// - A block too long for one chunk is chunked on its own: paragraphs at sentence boundaries (Intl.Segmenter, made
//   at first use: it reads ICU's data), lists and code at line breaks, tables by rows with the header rows repeated
//   at the top of every later chunk; a single sentence or row still too long is cut at the last word boundary.
// - Consecutive chunks of a section overlap by whole sentences (or list lines) of the previous chunk, up to
//   `overlapTokens`; never around a table, whose repeated header gives the context instead.
// Tokens are counted with the platform tokenizer (o200k). The result depends only on the input: same document,
// same chunks. `text` is `parsed.text.slice(start, end)`, except in a table's later chunks, where it is the header
// rows, a line break, then that slice.
import { countTokens, truncateToTokens } from '#tokenizer';
import type { Block, BlockType, ParsedDocument } from './parsed-document.js';

export interface Chunk {
  readonly index: number;
  readonly text: string;
  readonly tokenCount: number;
  /** The trail of headings above the chunk, outermost first (`['Install', 'Linux']`); empty before any heading. */
  readonly sectionPath: readonly string[];
  readonly start: number;
  readonly end: number;
}

export interface ChunkOptions {
  readonly maxTokens?: number;
  readonly overlapTokens?: number;
}

export const DEFAULT_CHUNK_OPTIONS = { maxTokens: 400, overlapTokens: 60 } as const;
/** Without an explicit overlap, smaller chunks get a proportionally smaller one (15 %, as 60 is of 400). */
const DEFAULT_OVERLAP_SHARE = DEFAULT_CHUNK_OPTIONS.overlapTokens / DEFAULT_CHUNK_OPTIONS.maxTokens;
/** Below this a chunk cannot hold a word of some scripts. */
export const MIN_CHUNK_TOKENS = 8;

/** What joining two pieces is assumed to cost while packing; the exact count is taken before a chunk is kept. */
const JOIN_TOKENS = 1;
let segmenter: Intl.Segmenter | undefined;
const sentenceSegmenter = () => (segmenter ??= new Intl.Segmenter('en', { granularity: 'sentence' }));

interface Span {
  readonly start: number;
  readonly end: number;
}

interface TableHeader extends Span {
  readonly text: string;
}

/** The unit of packing: a whole block, or one piece of a block too long for a chunk. */
interface Atom extends Span {
  readonly tokens: number;
  readonly type: BlockType;
  /** Pieces of one long block share its index and are never packed with anything else; whole blocks are null. */
  readonly group: number | null;
  /** Rows of a split table: the header rows a chunk repeats when it does not contain them. */
  readonly header?: TableHeader;
}

interface Section {
  readonly path: readonly string[];
  readonly blocks: readonly (readonly [Block, number])[];
}

const sectionsOf = (blocks: readonly Block[]): Section[] => {
  const trail: { readonly level: number; readonly title: string }[] = [];
  const sections: { path: readonly string[]; blocks: (readonly [Block, number])[] }[] = [
    { path: [], blocks: [] },
  ];
  blocks.forEach((block, index) => {
    if (block.type === 'heading') {
      const level = block.level ?? 1;
      while (trail.length > 0 && trail[trail.length - 1]!.level >= level) trail.pop();
      trail.push({ level, title: block.text });
      sections.push({ path: trail.map((entry) => entry.title), blocks: [] });
    }
    sections[sections.length - 1]!.blocks.push([block, index]);
  });
  return sections.filter((section) => section.blocks.some(([block]) => block.type !== 'heading'));
};

/** Trims a range of `text` to its non-blank part; null when it is all blank. */
const trimmed = (text: string, start: number, end: number): Span | null => {
  let from = start;
  let to = end;
  while (from < to && /\s/.test(text[from]!)) from++;
  while (to > from && /\s/.test(text[to - 1]!)) to--;
  return from < to ? { start: from, end: to } : null;
};

/** Sentences of a range (a paragraph's line breaks are soft wraps, not sentence ends). */
const sentences = (text: string, span: Span, softWraps: boolean): Span[] => {
  const slice = text.slice(span.start, span.end);
  const view = softWraps ? slice.replace(/\n/g, ' ') : slice;
  const spans: Span[] = [];
  for (const { index, segment } of sentenceSegmenter().segment(view)) {
    const piece = trimmed(text, span.start + index, span.start + index + segment.length);
    if (piece) spans.push(piece);
  }
  return spans;
};

const lines = (text: string, span: Span): Span[] => {
  const spans: Span[] = [];
  let from = span.start;
  while (from <= span.end) {
    const newline = text.indexOf('\n', from);
    const to = newline === -1 || newline > span.end ? span.end : newline;
    const line = trimmed(text, from, to);
    if (line) spans.push(line);
    from = to + 1;
  }
  return spans;
};

/** The natural pieces of a block: sentences of prose, lines of lists, code and tables. */
const piecesOf = (text: string, type: BlockType, span: Span): Span[] =>
  type === 'paragraph' || type === 'heading' ? sentences(text, span, true) : lines(text, span);

/** Cuts a range into pieces of at most `maxTokens`, each ending at a word boundary when one is near. */
const cutByTokens = (text: string, span: Span, maxTokens: number): Span[] => {
  const spans: Span[] = [];
  // Wide enough for maxTokens of any ordinary text; truncateToTokens keeps the part that fits.
  const window = maxTokens * 8 + 64;
  let from = span.start;
  while (from < span.end) {
    const rest = trimmed(text, from, span.end);
    if (!rest) break;
    from = rest.start;
    const candidate = text.slice(from, Math.min(span.end, from + window));
    let piece = truncateToTokens(candidate, maxTokens);
    if (piece.length === 0) piece = String.fromCodePoint(candidate.codePointAt(0)!);
    else if (piece.length < candidate.length) {
      const lastSpace = piece.search(/\s\S*$/);
      if (lastSpace > piece.length / 2) piece = piece.slice(0, lastSpace);
    }
    const cut = trimmed(text, from, from + piece.length);
    if (cut) spans.push(cut);
    from += piece.length;
  }
  return spans;
};

const headerOf = (
  text: string,
  block: Block,
  rows: readonly Span[],
  headerRows: number,
  maxTokens: number,
): TableHeader | undefined => {
  if (headerRows <= 0) return undefined;
  const header = { start: block.start, end: rows[headerRows - 1]!.end };
  const headerText = text.slice(header.start, header.end);
  // A header that would eat most of every chunk is not repeated.
  return countTokens(headerText) <= maxTokens / 2 ? { ...header, text: headerText } : undefined;
};

/** The atoms of a block: itself when it fits in a chunk, else its pieces. */
const atomsOf = (text: string, block: Block, group: number, maxTokens: number): Atom[] => {
  const tokens = countTokens(block.text);
  if (tokens <= maxTokens)
    return [{ start: block.start, end: block.end, tokens, type: block.type, group: null }];
  const pieces = piecesOf(text, block.type, block);
  const headerRows = block.type === 'table' ? Math.min(block.headerRows ?? 0, pieces.length - 1) : 0;
  const header = headerOf(text, block, pieces, headerRows, maxTokens);
  const atoms: Atom[] = [];
  const budget = header ? maxTokens - countTokens(header.text) - JOIN_TOKENS : maxTokens;
  for (const piece of header ? pieces.slice(headerRows) : pieces) {
    const pieceTokens = countTokens(text.slice(piece.start, piece.end));
    const parts =
      pieceTokens <= budget
        ? [{ ...piece, tokens: pieceTokens }]
        : cutByTokens(text, piece, budget).map((part) => ({
            ...part,
            tokens: countTokens(text.slice(part.start, part.end)),
          }));
    for (const part of parts) atoms.push({ ...part, type: block.type, group, ...(header ? { header } : {}) });
  }
  // The first rows carry the header in place: their chunk starts at the top of the table.
  const first = atoms[0];
  if (header && first && countTokens(text.slice(header.start, first.end)) <= maxTokens)
    atoms[0] = { ...first, start: header.start, tokens: countTokens(text.slice(header.start, first.end)) };
  return atoms;
};

interface Candidate {
  readonly atoms: readonly Atom[];
  /** Where the overlap with the previous chunk starts, when there is one. */
  readonly overlapStart?: number;
  readonly withoutHeader?: boolean;
}

const materialize = (text: string, candidate: Candidate): { text: string; tokens: number } & Span => {
  const { atoms } = candidate;
  const start = candidate.overlapStart ?? atoms[0]!.start;
  const end = atoms[atoms.length - 1]!.end;
  const header = atoms.find((atom) => atom.header)?.header;
  const slice = text.slice(start, end);
  const chunkText =
    header && !candidate.withoutHeader && start > header.start ? `${header.text}\n${slice}` : slice;
  return { text: chunkText, tokens: countTokens(chunkText), start, end };
};

/** Whether `atom` may join a chunk holding `atoms`: a heading takes anything; otherwise only the same group. */
const joins = (atoms: readonly Atom[], atom: Atom): boolean =>
  (atoms.length === 1 && atoms[0]!.type === 'heading') || atoms[atoms.length - 1]!.group === atom.group;

const isTable = (atom: Atom): boolean => atom.type === 'table';

/** The start of the longest run of whole sentences (or lines) ending the previous chunk within `budget` tokens. */
const overlapStart = (text: string, previous: readonly Atom[], budget: number): number | undefined => {
  const last = previous[previous.length - 1]!;
  if (budget <= 0 || isTable(last)) return undefined;
  const end = last.end;
  let best: number | undefined;
  for (let index = previous.length - 1; index >= 0; index--) {
    const atom = previous[index]!;
    if (isTable(atom) || atom.type === 'heading') break;
    const pieces = piecesOf(text, atom.type, atom);
    for (let piece = pieces.length - 1; piece >= 0; piece--) {
      const start = pieces[piece]!.start;
      // Never the whole previous chunk: the overlap is a proper tail of it.
      if (start <= previous[0]!.start) return best;
      if (countTokens(text.slice(start, end)) > budget) return best;
      best = start;
    }
  }
  return best;
};

const chunkSection = (
  text: string,
  section: Section,
  maxTokens: number,
  overlapTokens: number,
  emit: (chunk: { text: string; tokens: number } & Span) => void,
): void => {
  const atoms = section.blocks.flatMap(([block, index]) => atomsOf(text, block, index, maxTokens));
  let previous: readonly Atom[] | undefined;
  let next = 0;
  while (next < atoms.length) {
    const first = atoms[next]!;
    let overlap =
      previous && !isTable(first) && first.type !== 'heading'
        ? overlapStart(text, previous, overlapTokens)
        : undefined;
    let estimate =
      overlap === undefined ? 0 : countTokens(text.slice(overlap, previous![previous!.length - 1]!.end));
    if (first.header && first.start > first.header.start)
      estimate += countTokens(first.header.text) + JOIN_TOKENS;
    let end = next;
    while (end < atoms.length) {
      const atom = atoms[end]!;
      const cost = (end > next || overlap !== undefined ? JOIN_TOKENS : 0) + atom.tokens;
      if (end > next && (!joins(atoms.slice(next, end), atom) || estimate + cost > maxTokens)) break;
      estimate += cost;
      end++;
    }
    // The estimate decides the packing; the exact count decides what is kept.
    let withoutHeader = false;
    for (;;) {
      const chunk = materialize(text, {
        atoms: atoms.slice(next, end),
        ...(overlap === undefined ? {} : { overlapStart: overlap }),
        withoutHeader,
      });
      if (chunk.tokens <= maxTokens || (end - next === 1 && overlap === undefined && withoutHeader)) {
        emit(chunk);
        break;
      }
      if (end - next > 1) end--;
      else if (overlap !== undefined) overlap = undefined;
      else withoutHeader = true;
    }
    previous = atoms.slice(next, end);
    next = end;
  }
};

export const chunkDocument = (parsed: ParsedDocument, options: ChunkOptions = {}): Chunk[] => {
  const maxTokens = options.maxTokens ?? DEFAULT_CHUNK_OPTIONS.maxTokens;
  const overlapTokens =
    options.overlapTokens ??
    Math.min(DEFAULT_CHUNK_OPTIONS.overlapTokens, Math.floor(maxTokens * DEFAULT_OVERLAP_SHARE));
  if (!Number.isInteger(maxTokens) || maxTokens < MIN_CHUNK_TOKENS)
    throw new RangeError(`maxTokens must be an integer of at least ${MIN_CHUNK_TOKENS}`);
  if (!Number.isInteger(overlapTokens) || overlapTokens < 0 || overlapTokens >= maxTokens)
    throw new RangeError('overlapTokens must be an integer from 0 to below maxTokens');
  const chunks: Chunk[] = [];
  for (const section of sectionsOf(parsed.blocks))
    chunkSection(parsed.text, section, maxTokens, overlapTokens, ({ text, tokens, start, end }) =>
      chunks.push({ index: chunks.length, text, tokenCount: tokens, sectionPath: section.path, start, end }),
    );
  return chunks;
};
