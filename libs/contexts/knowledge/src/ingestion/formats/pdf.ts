// PDF to blocks with Mozilla's pdf.js (the legacy build, the one meant for Node): the text of each page, grouped
// into lines by position and into paragraphs by the vertical gaps between lines. A PDF has no reliable headings,
// so every block is a paragraph, tagged with its page. pdf.js is imported on first use: it is large, and most
// documents are not PDFs.
import type { TextItem, TextMarkedContent } from 'pdfjs-dist/types/src/display/api.js';
import { IngestionError } from '../ingestion-error.js';
import type { DocumentBuilder } from '../parsed-document.js';

interface Line {
  readonly text: string;
  readonly y: number;
  readonly height: number;
}

const isTextItem = (item: TextItem | TextMarkedContent): item is TextItem => 'str' in item;

const pageLines = (items: readonly (TextItem | TextMarkedContent)[]): Line[] => {
  const lines: Line[] = [];
  let text = '';
  let y = 0;
  let height = 0;
  const endLine = (): void => {
    if (text.trim().length > 0) lines.push({ text, y, height });
    text = '';
  };
  for (const item of items) {
    if (!isTextItem(item)) continue;
    const itemY = Number(item.transform[5]);
    // An item clearly above or below the current line starts a new one, even without an end-of-line mark.
    if (text.length > 0 && Math.abs(itemY - y) > Math.max(item.height, height, 1) / 2) endLine();
    if (text.length === 0) {
      y = itemY;
      height = item.height;
    }
    text += item.str;
    height = Math.max(height, item.height);
    if (item.hasEOL) endLine();
  }
  endLine();
  return lines;
};

/** Paragraph breaks: a gap well over the page's usual line spacing, a blank line's worth of space, or a jump up. */
const paragraphs = (lines: readonly Line[]): string[] => {
  const gaps = lines.slice(1).map((line, index) => lines[index]!.y - line.y);
  const spacings = gaps.filter((gap, index) => gap >= lines[index + 1]!.height / 2);
  const lineSpacing = spacings.length > 0 ? Math.min(...spacings) : 0;
  const result: string[] = [];
  let current: string[] = [];
  lines.forEach((line, index) => {
    const gap = index === 0 ? 0 : gaps[index - 1]!;
    const newParagraph =
      index > 0 && (gap < 0 || gap > lineSpacing * 1.4 || gap > Math.max(line.height, 1) * 2);
    if (newParagraph && current.length > 0) {
      result.push(current.join('\n'));
      current = [];
    }
    current.push(line.text);
  });
  if (current.length > 0) result.push(current.join('\n'));
  return result;
};

export const addPdfBlocks = async (
  bytes: Uint8Array,
  builder: DocumentBuilder,
  maxPages: number,
): Promise<void> => {
  const { getDocument, PasswordException } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  // pdf.js takes ownership of (and may detach) the buffer it is given, so it gets a copy.
  const loadingTask = getDocument({
    data: new Uint8Array(bytes),
    verbosity: 0,
    disableFontFace: true,
    useSystemFonts: false,
    useWorkerFetch: false,
    stopAtErrors: false,
  });
  try {
    const document = await loadingTask.promise.catch((error: unknown) => {
      if (error instanceof PasswordException)
        throw new IngestionError('parse_failed', 'the PDF is encrypted with a password');
      throw error;
    });
    if (document.numPages > maxPages)
      throw new IngestionError(
        'too_large',
        `the PDF has ${document.numPages} pages, over the limit of ${maxPages}`,
      );
    for (let pageNumber = 1; pageNumber <= document.numPages; pageNumber++) {
      const page = await document.getPage(pageNumber);
      const content = await page.getTextContent();
      for (const paragraph of paragraphs(pageLines(content.items)))
        builder.add('paragraph', paragraph, { page: pageNumber });
      page.cleanup();
    }
  } finally {
    await loadingTask.destroy();
  }
};
