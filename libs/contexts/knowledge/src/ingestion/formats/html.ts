// HTML to blocks with parse5 (the WHATWG tree construction browsers use, so broken markup is repaired the same way a
// browser would). Scripts, styles and other non-content elements are dropped; headings, paragraphs, lists, tables
// and preformatted code become blocks; inline text between block boundaries becomes paragraphs (a <p> is such a
// container too: in quirks mode a table can sit inside one). Markdown (rendered by
// marked) and DOCX (rendered by mammoth) come through here too, so all three share one notion of structure.
// Every walk is iterative: hostile nesting depth cannot overflow the stack.
import { parse, type DefaultTreeAdapterTypes } from 'parse5';
import { collapseWhitespace, type DocumentBuilder } from '../parsed-document.js';

type Node = DefaultTreeAdapterTypes.Node;
type Element = DefaultTreeAdapterTypes.Element;

/** Not content: metadata, code, embedded media, form controls, and navigation menus. */
const SKIPPED = new Set([
  'head',
  'nav',
  'title',
  'meta',
  'link',
  'base',
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'canvas',
  'audio',
  'video',
  'map',
  'img',
  'input',
  'button',
  'select',
  'datalist',
  'textarea',
]);

/** Phrasing elements: their text flows into the surrounding paragraph. Anything else starts a new block. */
const INLINE = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'big',
  'cite',
  'code',
  'data',
  'del',
  'dfn',
  'em',
  'font',
  'i',
  'ins',
  'kbd',
  'label',
  'mark',
  'q',
  'rp',
  'rt',
  'ruby',
  's',
  'samp',
  'small',
  'span',
  'strike',
  'strong',
  'sub',
  'sup',
  'time',
  'tt',
  'u',
  'var',
  'wbr',
]);

const HEADING_LEVELS: Readonly<Record<string, number>> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };
const LISTS = new Set(['ul', 'ol', 'dl']);

const isElement = (node: Node): node is Element => 'tagName' in node;

const childrenOf = (node: Node): readonly Node[] => ('childNodes' in node ? node.childNodes : []);

/** Pushes `items` so that they pop in document order (a loop: spreading a huge child list would overflow the stack). */
const pushReversed = <T>(stack: T[], items: readonly T[]): void => {
  for (let index = items.length - 1; index >= 0; index--) stack.push(items[index]!);
};

const attribute = (element: Element, name: string): string | undefined =>
  element.attrs.find((attr) => attr.name === name)?.value;

/**
 * The text under `root`: whitespace runs collapse to one space, `<br>` and block boundaries become line breaks.
 * Elements named in `stopAt` are not entered; they are handed to `onStop` in document order instead.
 */
const collectText = (
  root: Element,
  stopAt: ReadonlySet<string> = new Set(),
  onStop: (element: Element) => void = () => undefined,
): string => {
  const parts: string[] = [];
  const stack: (Node | 'break')[] = [];
  pushReversed(stack, childrenOf(root));
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node === 'break') {
      parts.push('\n');
      continue;
    }
    if (node.nodeName === '#text') {
      parts.push((node as DefaultTreeAdapterTypes.TextNode).value.replace(/\s+/g, ' '));
      continue;
    }
    if (!isElement(node) || SKIPPED.has(node.tagName)) continue;
    if (node.tagName === 'br') parts.push('\n');
    else if (stopAt.has(node.tagName)) onStop(node);
    else if (INLINE.has(node.tagName)) pushReversed(stack, node.childNodes);
    else {
      stack.push('break');
      pushReversed(stack, node.childNodes);
      stack.push('break');
    }
  }
  return parts.join('');
};

const preformattedText = (root: Element): string => {
  const parts: string[] = [];
  const stack: Node[] = [];
  pushReversed(stack, root.childNodes);
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.nodeName === '#text') parts.push((node as DefaultTreeAdapterTypes.TextNode).value);
    else if (isElement(node) && !SKIPPED.has(node.tagName))
      if (node.tagName === 'br') parts.push('\n');
      else pushReversed(stack, node.childNodes);
  }
  return parts.join('');
};

const NESTED_LISTS = new Set(['ul', 'ol']);

/** One line per item, nested lists indented under their item: `- item`, `1. step`, `  - sub item`. */
const listLines = (list: Element): string => {
  type Frame = { readonly element: Element; readonly depth: number; readonly marker?: string };
  const lines: string[] = [];
  const stack: Frame[] = [{ element: list, depth: 0 }];
  while (stack.length > 0) {
    const { element, depth, marker } = stack.pop()!;
    if (marker === undefined) {
      // A list: its items, in order.
      const ordered = element.tagName === 'ol';
      let number = Number.parseInt(attribute(element, 'start') ?? '1', 10);
      if (!Number.isFinite(number)) number = 1;
      const items: Frame[] = [];
      for (const child of element.childNodes) {
        if (!isElement(child)) continue;
        if (child.tagName === 'li')
          items.push({ element: child, depth, marker: ordered ? `${number++}.` : '-' });
        else if (child.tagName === 'dt') items.push({ element: child, depth, marker: '-' });
        else if (child.tagName === 'dd') items.push({ element: child, depth: depth + 1, marker: '' });
        else if (NESTED_LISTS.has(child.tagName)) items.push({ element: child, depth: depth + 1 });
      }
      pushReversed(stack, items);
      continue;
    }
    const nested: Frame[] = [];
    const text = collapseWhitespace(
      collectText(element, NESTED_LISTS, (sublist) => nested.push({ element: sublist, depth: depth + 1 })),
    );
    if (text.length > 0) lines.push(`${'  '.repeat(depth)}${marker ? `${marker} ` : ''}${text}`);
    pushReversed(stack, nested);
  }
  return lines.join('\n');
};

/** The rows of a table (not of tables nested in its cells), cells joined by ` | `; header rows first. */
const tableRows = (table: Element): { readonly text: string; readonly headerRows: number } => {
  const rows: { readonly cells: string[]; readonly header: boolean }[] = [];
  const stack: { readonly node: Node; readonly inHead: boolean }[] = [];
  pushReversed(
    stack,
    table.childNodes.map((node) => ({ node, inHead: false })),
  );
  while (stack.length > 0) {
    const { node, inHead } = stack.pop()!;
    if (!isElement(node) || node.tagName === 'table' || node.tagName === 'caption') continue;
    if (node.tagName !== 'tr') {
      const head = inHead || node.tagName === 'thead';
      pushReversed(
        stack,
        node.childNodes.map((child) => ({ node: child, inHead: head })),
      );
      continue;
    }
    const cells = node.childNodes.filter(
      (cell): cell is Element => isElement(cell) && (cell.tagName === 'td' || cell.tagName === 'th'),
    );
    const texts = cells.map((cell) => collapseWhitespace(collectText(cell)));
    if (texts.every((text) => text.length === 0)) continue;
    rows.push({ cells: texts, header: inHead || cells.every((cell) => cell.tagName === 'th') });
  }
  let headerRows = 0;
  while (headerRows < rows.length - 1 && rows[headerRows]!.header) headerRows++;
  return { text: rows.map((row) => row.cells.join(' | ')).join('\n'), headerRows };
};

/** Adds the blocks of an HTML document or fragment to `builder`. */
export const addHtmlBlocks = (html: string, builder: DocumentBuilder): void => {
  const pending: string[] = [];
  const flush = (): void => {
    if (pending.length === 0) return;
    builder.add('paragraph', pending.join(''));
    pending.length = 0;
  };
  const stack: (Node | 'flush')[] = [parse(html)];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node === 'flush') {
      flush();
      continue;
    }
    if (node.nodeName === '#text') {
      pending.push((node as DefaultTreeAdapterTypes.TextNode).value.replace(/\s+/g, ' '));
      continue;
    }
    if (!isElement(node)) {
      if (node.nodeName === '#document' || node.nodeName === '#document-fragment')
        pushReversed(stack, childrenOf(node));
      continue;
    }
    const tag = node.tagName;
    if (SKIPPED.has(tag)) continue;
    if (tag === 'br') {
      pending.push('\n');
      continue;
    }
    if (INLINE.has(tag)) {
      pushReversed(stack, node.childNodes);
      continue;
    }
    flush();
    const level = HEADING_LEVELS[tag];
    if (level !== undefined) builder.add('heading', collectText(node), { level });
    else if (tag === 'pre') builder.add('code', preformattedText(node));
    else if (LISTS.has(tag)) builder.add('list', listLines(node));
    else if (tag === 'table') {
      const caption = node.childNodes.find((child) => isElement(child) && child.tagName === 'caption');
      if (caption && isElement(caption)) builder.add('paragraph', collectText(caption));
      const { text, headerRows } = tableRows(node);
      builder.add('table', text, headerRows > 0 ? { headerRows } : {});
    } else {
      stack.push('flush');
      pushReversed(stack, node.childNodes);
    }
  }
  flush();
};
