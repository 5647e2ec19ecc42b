// The one text format of retrieved Knowledge passages in a prompt, owned by the conversation runtime (which writes
// it: a system message per turn, and the result of the `search_knowledge` tool) and read back by its offline
// responder (`offline/knowledge-responder.ts`) to answer without a language model. Models cite a source with its
// number in square brackets.
//
// A block starts only at a line `[n] …` right after the header or a blank line, and the formatter folds blank lines
// inside a passage, so a passage quoting `[2]` (even at a line start) can never be read as a block of its own.

/** One numbered passage as the model sees it. */
export interface PromptSource {
  /** The number the model cites, `[index]`; unique within a turn (tool results continue the numbering). */
  index: number;
  documentName: string;
  /** Headings from the document's top down to the passage; empty for a passage outside any section. */
  sectionPath: readonly string[];
  text: string;
}

/** The built-in tool of Agents that searches their Knowledge again (arguments `{ query: string }`). */
export const SEARCH_KNOWLEDGE_TOOL = 'search_knowledge';
export const SOURCES_HEADER = 'Sources retrieved for this turn:';
export const TOOL_SOURCES_HEADER = 'Sources found by search_knowledge:';
export const SOURCES_INSTRUCTION =
  'Answer from these sources and cite each claim with its number in square brackets, like [1]. ' +
  'If they do not contain the answer, say so.';
export const NO_SOURCES = '(no sources were found)';
/** Between the document name and each heading of the section path. */
const PATH_SEPARATOR = ' › ';

const HEADERS: readonly string[] = [SOURCES_HEADER, TOOL_SOURCES_HEADER];
const BLOCK_START = /^\[(\d+)\](?: (.*))?$/;
/** `[1]`, `[1, 2]` (and `[1,2]`); `[1][2]` is two of them. */
const MARKER = /\[(\d+(?:[ \t]*,[ \t]*\d+)*)\]/g;

/** A heading label on one line: the separator inside a name would split it differently when read back. */
const label = (text: string): string => text.replace(/\s+/g, ' ').replaceAll('›', '>').trim();

/** Blank lines would let a line of the passage pass for the start of a block. */
const passage = (text: string): string =>
  text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .join('\n')
    .trim();

const block = (source: PromptSource): string =>
  `[${source.index}] ${[source.documentName, ...source.sectionPath].map(label).join(PATH_SEPARATOR)}\n` +
  passage(source.text);

/** The system message that puts a turn's retrieved passages before the model. */
export const formatSourcesBlock = (sources: readonly PromptSource[]): string =>
  sources.length === 0
    ? `${SOURCES_HEADER}\n${NO_SOURCES}`
    : `${SOURCES_HEADER}\n${SOURCES_INSTRUCTION}\n\n${sources.map(block).join('\n\n')}`;

/** The result of a `search_knowledge` call: the same blocks, numbered on from the turn's sources. */
export const formatToolSources = (sources: readonly PromptSource[]): string =>
  sources.length === 0
    ? `${TOOL_SOURCES_HEADER}\n${NO_SOURCES}`
    : `${TOOL_SOURCES_HEADER}\n\n${sources.map(block).join('\n\n')}`;

/** Whether a message text is a sources block (either header), sources found or not. */
export const isSourcesText = (text: string): boolean => {
  const first = text.trimStart().split(/\r?\n/, 1)[0]?.trim() ?? '';
  return HEADERS.includes(first);
};

/** The sources of a text made by {@link formatSourcesBlock} or {@link formatToolSources}; none without a header. */
export const parseSources = (text: string): PromptSource[] => {
  const lines = text.split(/\r?\n/);
  const header = lines.findIndex((line) => HEADERS.includes(line.trim()));
  if (header < 0) return [];
  const sources: PromptSource[] = [];
  let current: { source: PromptSource; lines: string[] } | undefined;
  const close = () => {
    if (current) sources.push({ ...current.source, text: current.lines.join('\n').trim() });
  };
  for (let at = header + 1; at < lines.length; at++) {
    const line = lines[at]!;
    const start = at === header + 1 || lines[at - 1]!.trim() === '' ? BLOCK_START.exec(line) : null;
    if (start) {
      close();
      const [documentName = '', ...sectionPath] = (start[2] ?? '').split(PATH_SEPARATOR);
      current = { source: { index: Number(start[1]), documentName, sectionPath, text: '' }, lines: [] };
    } else current?.lines.push(line);
  }
  close();
  return sources;
};

const numbersOf = (list: string): number[] => list.split(',').map((n) => Number(n.trim()));

/** The distinct source numbers an answer cites, in order of first citation. */
export const citationMarkers = (answer: string): number[] => {
  const seen = new Set<number>();
  for (const [, list] of answer.matchAll(MARKER)) for (const n of numbersOf(list!)) seen.add(n);
  return [...seen];
};

/**
 * The answer without citations of sources it was not given (a model may invent `[7]`): a marker citing none of
 * them goes with the space before it, one citing some keeps those; everything else is left verbatim.
 */
export const dropUnknownMarkers = (answer: string, known: ReadonlySet<number>): string => {
  let result = '';
  let last = 0;
  /** A marker removed at a line start leaves the space after it leading the line. */
  let trimNext = false;
  for (const match of answer.matchAll(MARKER)) {
    let before = answer.slice(last, match.index);
    if (trimNext) before = before.replace(/^[ \t]+/, '');
    trimNext = false;
    last = match.index + match[0].length;
    const numbers = numbersOf(match[1]!);
    const kept = numbers.filter((n) => known.has(n));
    if (kept.length === numbers.length) {
      result += before + match[0];
      continue;
    }
    if (kept.length > 0) {
      result += `${before}[${kept.join(', ')}]`;
      continue;
    }
    // Before another marker the space stays: it separates the words before from the marker kept.
    result = answer[last] === '[' ? result + before : (result + before).replace(/[ \t]+$/, '');
    trimNext = result === '' || result.endsWith('\n');
  }
  const rest = answer.slice(last);
  return result + (trimNext ? rest.replace(/^[ \t]+/, '') : rest);
};
