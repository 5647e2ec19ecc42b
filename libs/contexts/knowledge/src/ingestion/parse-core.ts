// One parse, start to end, in whatever process calls it: bytes of a known kind to a ParsedDocument, or a stored
// document's bytes to its type, text and chunks; else an IngestionError. `parse.ts` runs this in a child process (via
// `parse-child.ts`) so that it can be bounded and stopped.
import { chunkDocument, type Chunk } from './chunk.js';
import { addCsvBlocks } from './formats/csv.js';
import { addDocxBlocks } from './formats/docx.js';
import { addHtmlBlocks } from './formats/html.js';
import { addJsonBlocks } from './formats/json.js';
import { addMarkdownBlocks } from './formats/markdown.js';
import { addPdfBlocks } from './formats/pdf.js';
import { addPlainTextBlocks } from './formats/plain-text.js';
import { IngestionError, toIngestionError } from './ingestion-error.js';
import { checkSize, type ParseLimits } from './parse-limits.js';

export { checkSize };
import { DocumentBuilder, type ParsedDocument } from './parsed-document.js';
import { sniffType, type DocumentKind } from './sniff.js';
import { decodeText } from './text-decoding.js';

const textOf = (bytes: Uint8Array): string => decodeText(bytes);

const addBlocks = async (
  bytes: Uint8Array,
  kind: DocumentKind,
  builder: DocumentBuilder,
  limits: ParseLimits,
): Promise<void> => {
  switch (kind) {
    case 'pdf':
      return addPdfBlocks(bytes, builder, limits.maxPdfPages);
    case 'docx':
      return addDocxBlocks(bytes, builder);
    case 'html':
      return addHtmlBlocks(textOf(bytes), builder);
    case 'markdown':
      return addMarkdownBlocks(textOf(bytes), builder);
    case 'csv':
      return addCsvBlocks(textOf(bytes), builder, limits.maxChars);
    case 'json':
      return addJsonBlocks(textOf(bytes), builder, limits.maxChars);
    case 'text':
      return addPlainTextBlocks(textOf(bytes), builder);
  }
};

export const parseInThisThread = async (
  bytes: Uint8Array,
  kind: DocumentKind,
  limits: ParseLimits,
): Promise<ParsedDocument> => {
  try {
    checkSize(bytes, limits);
    const builder = new DocumentBuilder(limits.maxChars);
    await addBlocks(bytes, kind, builder, limits);
    if (builder.blockCount === 0) throw new IngestionError('empty', `the ${kind} document has no text`);
    return builder.build();
  } catch (error) {
    throw toIngestionError(error);
  }
};

/** A stored document made ready for embedding: its sniffed type, its extracted text and its chunks. */
export interface PreparedDocument {
  readonly kind: DocumentKind;
  readonly mimeType: string;
  readonly text: string;
  readonly chunks: readonly Chunk[];
}

export const prepareInThisThread = async (
  bytes: Uint8Array,
  fileName: string,
  limits: ParseLimits,
): Promise<PreparedDocument> => {
  try {
    checkSize(bytes, limits);
    const type = await sniffType(bytes, fileName);
    if (!type)
      throw new IngestionError(
        'unsupported_type',
        'the content is not text, Markdown, HTML, PDF, DOCX, CSV or JSON',
      );
    const parsed = await parseInThisThread(bytes, type.kind, limits);
    const chunks = chunkDocument(parsed);
    if (chunks.length === 0) throw new IngestionError('empty', 'the document has no text to index');
    return { kind: type.kind, mimeType: type.mimeType, text: parsed.text, chunks };
  } catch (error) {
    throw toIngestionError(error);
  }
};

/** What `parse.ts` sends a child process, and what the child answers. */
export type ChildRequest =
  | {
      readonly op: 'parse';
      readonly bytes: Uint8Array;
      readonly kind: DocumentKind;
      readonly limits: ParseLimits;
    }
  | {
      readonly op: 'prepare';
      readonly bytes: Uint8Array;
      readonly fileName: string;
      readonly limits: ParseLimits;
    };

export type ChildReply =
  | { readonly ok: true; readonly document: ParsedDocument | PreparedDocument }
  | { readonly ok: false; readonly reason: string; readonly message: string };

export const answer = async (request: ChildRequest): Promise<ChildReply> => {
  try {
    const document =
      request.op === 'parse'
        ? await parseInThisThread(request.bytes, request.kind, request.limits)
        : await prepareInThisThread(request.bytes, request.fileName, request.limits);
    return { ok: true, document };
  } catch (error) {
    const failure = toIngestionError(error);
    return { ok: false, reason: failure.reason, message: failure.message };
  }
};
