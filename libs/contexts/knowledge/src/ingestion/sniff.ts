// What a document is, judged from its bytes, never from the client's Content-Type. Binary formats by their
// signature (PDF's `%PDF-`; DOCX, a zip whose [Content_Types].xml declares a WordprocessingML main part, by
// file-type); anything else must be UTF-8 text that reads as text: JSON (it parses to an object or array),
// HTML (a doctype, an <html> tag, or markup that opens with structural tags), CSV (a consistent table under one
// delimiter), Markdown (its syntax shows) or plain text. The file name is only a tie-breaker between the text
// kinds: it never makes bytes a PDF or a DOCX. Null means unsupported (the caller fails with `unsupported_type`).
import type * as FileType from 'file-type';
import { csvShape } from './formats/csv.js';
import { decodeText, decodeUnicode, decodeUtf8, readsAsText } from './text-decoding.js';

export const DOCUMENT_KINDS = ['text', 'markdown', 'html', 'pdf', 'docx', 'csv', 'json'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

export interface SniffedType {
  readonly mimeType: string;
  readonly kind: DocumentKind;
}

export const MIME_TYPES: Readonly<Record<DocumentKind, string>> = {
  text: 'text/plain',
  markdown: 'text/markdown',
  html: 'text/html',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  csv: 'text/csv',
  json: 'application/json',
};

const sniffed = (kind: DocumentKind): SniffedType => ({ kind, mimeType: MIME_TYPES[kind] });

// file-type (and the ~40 modules of its tokenizer) is loaded at the first binary document, not at start-up.
let fileType: Promise<typeof FileType> | undefined;
const loadFileType = (): Promise<typeof FileType> => (fileType ??= import('file-type'));

const PDF_MAGIC = Buffer.from('%PDF-', 'latin1');
/** Readers accept the PDF header anywhere in the first KiB (some producers put junk before it). */
const PDF_HEADER_WINDOW = 1024;

const view = (bytes: Uint8Array, length = bytes.byteLength): Buffer =>
  Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, length));

// Heuristics look at the start of the text only, and every repetition in their patterns is bounded or anchored:
// linear work whatever the input.
const SAMPLE_CHARS = 65_536;

const stripLeadingMarkup = (text: string): string => {
  let rest = text.trimStart();
  for (;;) {
    const next = rest.startsWith('<?xml')
      ? rest.slice(rest.indexOf('?>') + 2)
      : rest.startsWith('<!--')
        ? rest.slice(rest.indexOf('-->') + 3)
        : undefined;
    if (next === undefined || next.length >= rest.length) return rest;
    rest = next.trimStart();
  }
};

const STRUCTURAL_TAG = /<(head|body|div|p|h[1-6]|table|ul|ol|article|section|main|header|nav|span|a)[\s>/]/i;
const STRUCTURAL_CLOSE =
  /<\/(head|body|div|p|h[1-6]|table|ul|ol|article|section|main|header|nav|span|a)\s*>/i;

const isHtml = (sample: string): boolean => {
  const start = stripLeadingMarkup(sample);
  if (/^<!doctype\s+html/i.test(start) || /^<html[\s>]/i.test(start)) return true;
  return start.startsWith('<') && STRUCTURAL_TAG.test(start) && STRUCTURAL_CLOSE.test(start);
};

const CLOSING = { '{': '}', '[': ']' } as const;

const isJson = (text: string): boolean => {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return false;
  // An object or array ends with its closing bracket: checked before parsing, so that text which merely opens with
  // a bracket (a long run of `[`, say) is not handed to JSON.parse to fail only at its end.
  if (text.trimEnd().at(-1) !== CLOSING[first]) return false;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null;
  } catch {
    return false;
  }
};

/** Signs of Markdown syntax: strong ones are rare in plain prose, weak ones are not. */
interface MarkdownSign {
  readonly pattern: RegExp;
  /** A literal every match contains, looked for first. */
  readonly needs?: string;
}
const STRONG_MARKDOWN: readonly MarkdownSign[] = [
  { pattern: /^#{1,6}[ \t]+\S/m }, // ATX heading
  { pattern: /^(```|~~~)/m }, // fenced code
  { pattern: /^\|?[ \t]*:?-{3,}:?[ \t]*\|/m }, // table delimiter row
  // inline link: its text holds no bracket, its address no parenthesis but balanced pairs (`wiki/Etna_(volcano)`)
  { pattern: /\[[^[\]\n]{1,200}\]\((?:[^()\s]|\([^()\s]{0,200}\)){1,500}\)/, needs: '](' },
  { pattern: /\S[ \t]*\n(=+|-+)[ \t]*$/m }, // setext heading (a line underlined with = or -)
];
const WEAK_MARKDOWN: readonly MarkdownSign[] = [
  { pattern: /^[ \t]{0,3}([-*+]|\d{1,9}[.)])[ \t]+\S/m }, // list item
  { pattern: /\*\*[^*\n]{1,200}\*\*|__[^_\n]{1,200}__/ }, // strong emphasis
  { pattern: /^>[ \t]?\S/m }, // block quote
  { pattern: /`[^`\n]{1,200}`/ }, // code span
];

/**
 * A sign's pattern runs only where the literal it cannot match without occurs. A bounded repetition that never finds
 * its end costs its bound at every start: over a run of `[` the inline link's pattern, when its text could hold `[`,
 * took ≈ 200 steps per character (and over `[a](` repeated, its address ≈ 500). Now a link's text stops at the next
 * bracket, its address at the next unbalanced parenthesis, and `](` is looked for first.
 */
const shows = (sign: MarkdownSign, sample: string): boolean =>
  (sign.needs === undefined || sample.includes(sign.needs)) && sign.pattern.test(sample);

const markdownScore = (sample: string): number =>
  2 * STRONG_MARKDOWN.filter((sign) => shows(sign, sample)).length +
  WEAK_MARKDOWN.filter((sign) => shows(sign, sample)).length;

const extensionOf = (fileName: string | undefined): string => {
  const match = fileName ? /\.([A-Za-z0-9]+)$/.exec(fileName) : null;
  return match ? match[1]!.toLowerCase() : '';
};

const MARKDOWN_EXTENSIONS = new Set(['md', 'markdown', 'mdown', 'mkd', 'mkdn']);
const CSV_EXTENSIONS = new Set(['csv', 'tsv']);

const sniffText = (text: string, fileName: string | undefined): SniffedType => {
  if (isJson(text)) return sniffed('json');
  const sample = text.slice(0, SAMPLE_CHARS);
  if (isHtml(sample)) return sniffed('html');
  const extension = extensionOf(fileName);
  const score = markdownScore(sample);
  if (score >= 2) return sniffed('markdown');
  // A consistent table of three or more records is CSV; with a .csv name, any consistent table is.
  const shape = csvShape(text);
  if (shape && (shape.records >= 3 || CSV_EXTENSIONS.has(extension))) return sniffed('csv');
  // Undecided between Markdown and plain text: the name breaks the tie.
  return sniffed(MARKDOWN_EXTENSIONS.has(extension) ? 'markdown' : 'text');
};

/**
 * The type of a document from its bytes; null when it is not one of the supported kinds. Text is tried before the
 * binary signatures: two-byte signatures (BMP's `BM`, an executable's `MZ`) would otherwise claim ordinary text.
 */
export const sniffType = async (bytes: Uint8Array, fileName?: string): Promise<SniffedType | null> => {
  if (view(bytes, PDF_MAGIC.length).equals(PDF_MAGIC)) return sniffed('pdf');
  const utf8 = decodeUtf8(bytes);
  if (utf8 !== null && readsAsText(utf8)) return sniffText(utf8, fileName);
  if (view(bytes, PDF_HEADER_WINDOW).includes(PDF_MAGIC)) return sniffed('pdf');
  const detected = await (await loadFileType()).fileTypeFromBuffer(bytes);
  if (detected) return detected.mime === MIME_TYPES.docx ? sniffed('docx') : null;
  // No known binary format: UTF-16 behind its byte-order mark, else legacy single-byte text (Windows-1252).
  if (utf8 !== null) return null;
  const text = decodeUnicode(bytes) ?? decodeText(bytes);
  return readsAsText(text) ? sniffText(text, fileName) : null;
};
