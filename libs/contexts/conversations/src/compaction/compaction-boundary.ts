// The pure core of context compaction: where the boundary between the summarised prefix of a conversation and
// the part still sent verbatim lies, what the model sees on each side of it, and what a new compaction hands to
// the summariser. No I/O, no clock: the caller loads the messages and the checkpoint, calls the summariser and
// records the new checkpoint.
//
// A boundary is a (message, character offset) pair: every message before `throughMessageId` is summarised, and of
// that message the first `throughOffset` characters are. Offsets are UTF-16 indices, as `String.prototype.slice`
// takes them, so the kept tail of a message is always exactly `text.slice(throughOffset)`.
// Over 300 lines on purpose: the boundary's rules (where it lies, both sides of it, the next compaction's
// input) are one pure module with its invariants.
import { countTokens } from '#tokenizer';

export interface HistoryAttachment {
  readonly name: string;
  /** null when no text could be extracted: nothing of it reaches the model but its name. */
  readonly text: string | null;
}

export interface HistoryMessage {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly text: string;
  readonly attachments: readonly HistoryAttachment[];
}

export interface Checkpoint {
  readonly throughMessageId: string;
  /** characters of that message's text already summarised; === text.length when the whole message is */
  readonly throughOffset: number;
  readonly summary: string;
}

export interface CompactionPlan {
  /** the new boundary */
  readonly throughMessageId: string;
  readonly throughOffset: number;
  /**
   * what the summariser gets: the previous checkpoint's summary (if any) and the text newly summarised,
   * attachments as notes
   */
  readonly toSummarise: string;
  readonly tokensBefore: number;
}

export interface ViewMessage {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly text: string;
  readonly attachments: readonly HistoryAttachment[];
}

export interface ModelView {
  readonly summary: string | null;
  readonly messages: readonly ViewMessage[];
}

export interface PlanOptions {
  /**
   * tokens kept verbatim after the new boundary; half the budget by default, so that the turns after a compaction
   * have room to grow before the next one
   */
  readonly keepTokens?: number;
  readonly count?: (text: string) => number;
  /** A message's tokens when known (its text and attachments, counted before with `count`): not counted again. */
  readonly tokensOf?: KnownTokens;
}

/** A message's tokens counted before (its text and attachments, whole), or undefined. */
export type KnownTokens = (message: HistoryMessage) => number | undefined;

/** The note that replaces attachments before the boundary: `[Attachments summarised earlier: a.pdf, b.txt]`. */
export function attachmentNote(names: readonly string[]): string {
  return `[Attachments summarised earlier: ${names.join(', ')}]`;
}

/** A message as it stands after the boundary: `start` is the first character the model still sees. */
interface VisiblePart {
  readonly message: HistoryMessage;
  readonly start: number;
}

interface ResolvedHistory {
  readonly summary: string | null;
  readonly parts: readonly VisiblePart[];
}

/**
 * A checkpoint whose message is gone (deleted: the caller filters deleted messages out) is treated as absent
 * rather than guessed at: its offset means nothing in another message, and the caller drops it too, so the next
 * plan summarises from the first message again. Offsets are clamped so that a stale or hand-made checkpoint cannot
 * make `slice` reach outside the text.
 */
const resolve = (messages: readonly HistoryMessage[], checkpoint: Checkpoint | null): ResolvedHistory => {
  const at = checkpoint ? messages.findIndex((message) => message.id === checkpoint.throughMessageId) : -1;
  if (!checkpoint || at < 0)
    return { summary: null, parts: messages.map((message) => ({ message, start: 0 })) };
  const through = messages[at]!;
  const offset = Math.min(Math.max(0, Math.floor(checkpoint.throughOffset)), through.text.length);
  // An offset at the end of the text means the whole message is summarised; that includes offset 0 of an empty
  // text, so a message with only attachments can be summarised whole.
  const rest = messages.slice(at + 1).map((message) => ({ message, start: 0 }));
  const parts = offset >= through.text.length ? rest : [{ message: through, start: offset }, ...rest];
  return { summary: checkpoint.summary, parts };
};

/**
 * Attachments belong to the head of their message: once any of its text is summarised they are too, so a message
 * straddling the boundary shows a note naming them instead (the summariser saw only that note, never their text).
 * The note leads the text so that a caller rendering `text` cannot forget it.
 */
const visibleText = (message: HistoryMessage, start: number): string => {
  if (start === 0) return message.text;
  const tail = message.text.slice(start);
  if (message.attachments.length === 0) return tail;
  return `${attachmentNote(message.attachments.map((attachment) => attachment.name))}\n\n${tail}`;
};

/** A message shown whole is its own view (the same object each time: the prompt's forms are made once per message). */
const toViewMessage = ({ message, start }: VisiblePart): ViewMessage =>
  start === 0
    ? message
    : { id: message.id, role: message.role, text: visibleText(message, start), attachments: [] };

/**
 * The model's view: messages after the boundary, the straddling message from throughOffset on; before that a
 * summary message. Attachments of messages before the boundary never appear; a straddling message's attachments
 * are replaced by a note naming them.
 */
export function modelView(messages: readonly HistoryMessage[], checkpoint: Checkpoint | null): ModelView {
  // Without a checkpoint every message is shown whole: its own view.
  if (!checkpoint) return { summary: null, messages };
  const { summary, parts } = resolve(messages, checkpoint);
  return { summary, messages: parts.map(toViewMessage) };
}

// Per-message chat framing (role markers) is not counted: it depends on how the caller renders the view, and the
// budget the caller passes is expected to leave room for it and for the reply.
const partTokens = (part: VisiblePart, count: (text: string) => number, tokensOf?: KnownTokens): number => {
  const known = part.start === 0 ? tokensOf?.(part.message) : undefined;
  if (known !== undefined) return known;
  const view = toViewMessage(part);
  let tokens = count(view.text);
  for (const attachment of view.attachments) tokens += count(attachment.text ?? '');
  return tokens;
};

/**
 * Tokens of the model's view of the history: the checkpoint's summary plus what follows the boundary (attachment
 * texts included).
 */
export function historyTokens(
  messages: readonly HistoryMessage[],
  checkpoint: Checkpoint | null,
  count: (text: string) => number = countTokens,
  tokensOf?: KnownTokens,
): number {
  const { summary, parts } = resolve(messages, checkpoint);
  let tokens = summary === null ? 0 : count(summary);
  for (const part of parts) tokens += partTokens(part, count, tokensOf);
  return tokens;
}

// Made on first use: a segmenter loads ICU's break rules, pages of the node binary a start need not touch (≈1 MB of
// idle RSS for the two).
let segmenters: { readonly words: Intl.Segmenter; readonly sentences: Intl.Segmenter } | undefined;
const segmentersOnce = () =>
  (segmenters ??= {
    words: new Intl.Segmenter(undefined, { granularity: 'word' }),
    sentences: new Intl.Segmenter(undefined, { granularity: 'sentence' }),
  });
const WHITESPACE = /^\s+$/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;

/** Words in the sense of scripts written without spaces: CJK and Thai words, emoji (ZWJ sequences and flags whole). */
const isWordish = (segment: Intl.SegmentData): boolean =>
  segment.isWordLike === true || PICTOGRAPH.test(segment.segment);

/**
 * Offsets in (from, text.length) where a kept tail may begin, ascending. A tail begins at a sentence start, after
 * whitespace, or between two words the segmenter tells apart with nothing between them (CJK, emoji), never with
 * whitespace and never at a punctuation mark glued to a word. The Unicode word segmenter's boundaries fall between
 * grapheme clusters, so no cut splits a surrogate pair, a ZWJ emoji sequence or a flag.
 */
const cutPoints = (text: string, from: number): number[] => {
  const sentenceStarts = new Set<number>();
  for (const sentence of segmentersOnce().sentences.segment(text)) sentenceStarts.add(sentence.index);
  const cuts: number[] = [];
  let previous: Intl.SegmentData | undefined;
  for (const segment of segmentersOnce().words.segment(text)) {
    const at = segment.index;
    if (
      previous &&
      at > from &&
      !WHITESPACE.test(segment.segment) &&
      (WHITESPACE.test(previous.segment) ||
        sentenceStarts.has(at) ||
        (isWordish(previous) && isWordish(segment)))
    )
      cuts.push(at);
    previous = segment;
  }
  return cuts;
};

/**
 * The earliest cut whose tail fits `available`: the most verbatim text the budget allows, even mid-sentence, since
 * the summary right before it bridges the fragment. Binary search, because a tail's tokens only shrink as its start
 * moves right; the result is always one that was counted and fits (`cuts.length` when none does), so a tokenizer
 * that is not exactly monotone can cost a few kept tokens but never the budget. Each count is linear in the message,
 * so a huge message costs O(n log n), not O(n²).
 */
const earliestFittingCut = (fits: (cut: number) => boolean, cuts: readonly number[]): number => {
  let low = 0;
  let high = cuts.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (fits(cuts[middle]!)) high = middle;
    else low = middle + 1;
  }
  return low;
};

/**
 * The newly summarised text, in the order it was said. A message the previous boundary straddled is marked as
 * continued (its attachments were noted then); one the new boundary straddles is marked as continuing verbatim, so
 * the summary does not restate what the model will still read.
 */
const summariserInput = (
  previousSummary: string | null,
  parts: readonly VisiblePart[],
  boundaryPart: number,
  boundaryOffset: number,
): string => {
  const sections: string[] = [];
  if (previousSummary !== null) sections.push(`Summary of the conversation so far:\n${previousSummary}`);
  for (let index = 0; index <= boundaryPart; index++) {
    const { message, start } = parts[index]!;
    const end = index === boundaryPart ? boundaryOffset : message.text.length;
    const continued = start > 0 ? ' (continued)' : '';
    const continues = end < message.text.length ? ' (continues verbatim after this)' : '';
    const lines = [`${message.role}${continued}${continues}: ${message.text.slice(start, end).trimEnd()}`];
    if (start === 0 && message.attachments.length > 0)
      lines.push(attachmentNote(message.attachments.map((attachment) => attachment.name)));
    sections.push(lines.join('\n'));
  }
  return sections.join('\n\n');
};

/**
 * null when the view fits `budgetTokens`; else the boundary that keeps the most recent ~`keepTokens` (default
 * budget/2) verbatim: scanning back from the newest message, the boundary falls INSIDE the message where the kept
 * tokens run out, at a sentence or whitespace edge (never inside a word, never splitting a surrogate pair), or on a
 * message edge when the kept part would be empty/whole. The newest message (the one being answered) is never
 * summarised in full: if it alone exceeds keepTokens, the boundary falls inside it and its tail is kept.
 *
 * The new boundary never moves backwards: only what the model still sees is scanned, and a cut inside the message
 * the previous boundary straddles lies after that boundary. So the summariser never sees text the previous summary
 * already covers, and text the model was once shown verbatim is summarised exactly once. A boundary on a message edge is expressed as the end of the earlier message (offset === its text
 * length), never as offset 0 of the later one, so that message keeps its attachments.
 *
 * Also null when compacting could not shrink the view: the whole view is within `keepTokens` (only the summary is
 * too large), or all that remains is a newest message without any place to cut. The caller then has no better
 * history to send; `historyTokens` tells it how far over budget it is.
 */
export function planCompaction(
  messages: readonly HistoryMessage[],
  checkpoint: Checkpoint | null,
  budgetTokens: number,
  options: PlanOptions = {},
): CompactionPlan | null {
  const count = options.count ?? countTokens;
  const { tokensOf } = options;
  const tokensBefore = historyTokens(messages, checkpoint, count, tokensOf);
  if (tokensBefore <= budgetTokens) return null;
  const { summary, parts } = resolve(messages, checkpoint);
  let remaining = options.keepTokens ?? Math.floor(budgetTokens / 2);

  const plan = (boundaryPart: number, boundaryOffset: number): CompactionPlan => ({
    throughMessageId: parts[boundaryPart]!.message.id,
    throughOffset: boundaryOffset,
    toSummarise: summariserInput(summary, parts, boundaryPart, boundaryOffset),
    tokensBefore,
  });

  for (let index = parts.length - 1; index >= 0; index--) {
    const part = parts[index]!;
    const tokens = partTokens(part, count, tokensOf);
    if (tokens <= remaining) {
      remaining -= tokens;
      continue;
    }
    const { message } = part;
    const cuts = cutPoints(message.text, part.start);
    const available = remaining;
    const fitting = earliestFittingCut(
      (cut) => partTokens({ message, start: cut }, count) <= available,
      cuts,
    );
    if (fitting < cuts.length) return plan(index, cuts[fitting]!);
    const newest = index === parts.length - 1;
    if (!newest) return plan(index, message.text.length);
    // Even the shortest tail of the newest message is over the keep: keep that shortest tail rather than summarise
    // the message being answered, and only when it cannot be cut at all keep it whole and summarise what precedes.
    if (cuts.length > 0) return plan(index, cuts[cuts.length - 1]!);
    if (index === 0) return null;
    return plan(index - 1, parts[index - 1]!.message.text.length);
  }
  return null;
}
