// Markdown to blocks: marked (GFM: tables, fenced code, task lists) renders it to HTML, which the HTML path turns
// into blocks, so Markdown, HTML and DOCX agree on what a heading, a list or a table is. Raw HTML inside the
// Markdown is treated as the HTML path treats any HTML (scripts and styles dropped).
import { Marked } from 'marked';
import type { DocumentBuilder } from '../parsed-document.js';
import { addHtmlBlocks } from './html.js';

const markdown = new Marked({ gfm: true, breaks: false, async: false });

export const addMarkdownBlocks = (text: string, builder: DocumentBuilder): void => {
  addHtmlBlocks(markdown.parse(text, { async: false }), builder);
};
