// One parse, start to end, in whatever thread calls it: bytes of a known kind to a ParsedDocument, or an
// IngestionError. `parse.ts` runs this in a worker thread (via `parse-worker.ts`) so that it can be stopped.
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
import type { DocumentKind } from './sniff.js';
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

/** What `parse.ts` hands the worker, and what the worker answers. */
export interface ParseRequest {
  readonly bytes: Uint8Array;
  readonly kind: DocumentKind;
  readonly limits: ParseLimits;
}

export type ParseReply =
  | { readonly ok: true; readonly document: ParsedDocument }
  | { readonly ok: false; readonly reason: string; readonly message: string };
