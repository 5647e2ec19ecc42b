// DOCX to blocks: mammoth turns the WordprocessingML into semantic HTML (headings from the paragraph styles, tables,
// lists), which then goes through the HTML path. Images are not read (their bytes would only be base64-encoded
// into the HTML), and linked external files are never fetched. mammoth is imported on first use.
import type { DocumentBuilder } from '../parsed-document.js';
import { addHtmlBlocks } from './html.js';

export const addDocxBlocks = async (bytes: Uint8Array, builder: DocumentBuilder): Promise<void> => {
  const { default: mammoth } = await import('mammoth');
  const { value: html } = await mammoth.convertToHtml(
    { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
    {
      convertImage: mammoth.images.imgElement(() => Promise.resolve({ src: '' })),
      externalFileAccess: false,
    },
  );
  addHtmlBlocks(html, builder);
};
