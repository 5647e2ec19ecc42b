// JSON to blocks: every leaf becomes one readable line, `path.to.key: value` (`items[2].name: …`), one block per
// top-level entry, in document order. The walk is iterative, so nesting depth cannot overflow the stack.
import { IngestionError } from '../ingestion-error.js';
import { collapseWhitespace, type DocumentBuilder } from '../parsed-document.js';

const IDENTIFIER = /^[A-Za-z_$][\w$-]*$/;

const childPath = (path: string, key: string | number): string => {
  if (typeof key === 'number') return `${path}[${key}]`;
  if (!IDENTIFIER.test(key)) return `${path}[${JSON.stringify(key)}]`;
  return path.length === 0 ? key : `${path}.${key}`;
};

const leafText = (value: unknown): string | undefined => {
  if (value === null) return 'null';
  if (typeof value === 'string') return collapseWhitespace(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.length === 0 ? '[]' : undefined;
  if (typeof value === 'object') return Object.keys(value).length === 0 ? '{}' : undefined;
  return undefined;
};

const entries = (value: object): [string | number, unknown][] =>
  Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value);

/** The leaf lines under `value`, whose path is `path`. */
const leafLines = (path: string, value: unknown, maxChars: number): string => {
  const lines: string[] = [];
  let length = 0;
  const stack: [string, unknown][] = [[path, value]];
  while (stack.length > 0) {
    const [at, current] = stack.pop()!;
    const leaf = leafText(current);
    if (leaf !== undefined) {
      const line = at.length > 0 ? `${at}: ${leaf}` : leaf;
      length += line.length + 1;
      if (length > maxChars)
        throw new IngestionError('too_large', `the extracted text exceeds ${maxChars} characters`);
      lines.push(line);
      continue;
    }
    const children = entries(current as object);
    for (let index = children.length - 1; index >= 0; index--) {
      const [key, child] = children[index]!;
      stack.push([childPath(at, key), child]);
    }
  }
  return lines.join('\n');
};

export const addJsonBlocks = (text: string, builder: DocumentBuilder, maxChars: number): void => {
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null) builder.add('paragraph', leafLines('', value, maxChars));
  // An empty object or array has no entries, so no blocks: the document is empty.
  else
    for (const [key, child] of entries(value))
      builder.add('list', leafLines(childPath('', key), child, maxChars));
};
