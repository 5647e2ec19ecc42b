// Plain text to blocks: paragraphs are separated by blank lines; line breaks inside a paragraph are kept.
import type { DocumentBuilder } from '../parsed-document.js';

export const addPlainTextBlocks = (text: string, builder: DocumentBuilder): void => {
  for (const paragraph of text.replace(/\r\n?/g, '\n').split(/\n[ \t\f\v]*\n/))
    builder.add('paragraph', paragraph);
};
